// The in-workflow task list behind the `todo` tool.
import { z } from 'zod';
import { todoItemSchema, type TodoItem } from '../../shared/contract';

export function todoCarry() {
  return z.array(todoItemSchema());
}

/** The conversation's list (carried across continue-as-new); the todo tool changes it, the state query shows it. */
export class TodoList {
  #items: readonly TodoItem[];
  constructor(carried: TodoItem[] | undefined) {
    this.#items = carried ?? [];
  }
  get items(): readonly TodoItem[] {
    return this.#items;
  }
  carry(): TodoItem[] {
    return [...this.#items];
  }
  /** The todo tool's call: the list it answers with, or the error (and the list unchanged). */
  update(todos: TodoUpdate[], merge: boolean): { ok: true; text: string } | { ok: false; text: string } {
    const { list, error } = applyTodo(this.#items, todos, merge);
    if (error) return { ok: false, text: `Error: ${error}` };
    this.#items = list;
    return { ok: true, text: formatTodo(list) };
  }
}

export type TodoUpdate = { id: string; content?: string; status?: TodoItem['status'] };

/**
 * Items a list may hold. The tool runs inside the workflow task and answers with the whole list: unbounded, one reply
 * of hundreds of merging calls made a list of thousands of items rendered hundreds of times (89 MB of text for 400
 * calls), and the workflow thread was stopped mid-task, which took the worker process down with it.
 */
export const MAX_TODO_ITEMS = 100;

export function applyTodo(current: readonly TodoItem[], todos: TodoUpdate[], merge: boolean): { list: TodoItem[]; error?: string } {
  const list: TodoItem[] = merge ? current.map((t) => ({ ...t })) : [];
  for (const u of todos) {
    const existing = list.find((t) => t.id === u.id);
    if (existing) {
      if (u.content) existing.content = u.content;
      if (u.status) existing.status = u.status;
    } else if (u.content) {
      list.push({ id: u.id, content: u.content, status: u.status ?? 'pending' });
    } else {
      return { list: [...current], error: `todo item "${u.id}" does not exist yet and has no content` };
    }
  }
  if (list.length > MAX_TODO_ITEMS) {
    return {
      list: [...current],
      error: `the list would have ${list.length} items, more than ${MAX_TODO_ITEMS}: replace it (merge false) with the items still open, or group items`,
    };
  }
  return { list };
}

export function formatTodo(list: readonly TodoItem[]): string {
  if (list.length === 0) return 'Todo list is empty.';
  const mark = { pending: '[ ]', in_progress: '[~]', completed: '[x]', cancelled: '[-]' } as const;
  const done = list.filter((t) => t.status === 'completed').length;
  return [`Todo (${done}/${list.length} done):`, ...list.map((t) => `${mark[t.status]} ${t.id}. ${t.content}`)].join('\n');
}
