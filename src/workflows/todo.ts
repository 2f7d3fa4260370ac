// The in-workflow task list behind the `todo` tool. Pure.
import type { TodoItem } from '../shared/contract';

type TodoUpdate = { id: string; content?: string; status?: TodoItem['status'] };

export function applyTodo(current: TodoItem[], todos: TodoUpdate[], merge: boolean): { list: TodoItem[]; error?: string } {
  const list: TodoItem[] = merge ? current.map((t) => ({ ...t })) : [];
  for (const u of todos) {
    const existing = list.find((t) => t.id === u.id);
    if (existing) {
      if (u.content) existing.content = u.content;
      if (u.status) existing.status = u.status;
    } else if (u.content) {
      list.push({ id: u.id, content: u.content, status: u.status ?? 'pending' });
    } else {
      return { list: current, error: `todo item "${u.id}" does not exist yet and has no content` };
    }
  }
  return { list };
}

export function formatTodo(list: TodoItem[]): string {
  if (list.length === 0) return 'Todo list is empty.';
  const mark = { pending: '[ ]', in_progress: '[~]', completed: '[x]', cancelled: '[-]' } as const;
  const done = list.filter((t) => t.status === 'completed').length;
  return [`Todo (${done}/${list.length} done):`, ...list.map((t) => `${mark[t.status]} ${t.id}. ${t.content}`)].join('\n');
}
