// The texts of the context compression (compress.ts): the summarising call's instructions and the summary
// message that replaces the middle of the conversation. Pure.
import type { TodoItem } from '../../shared/contract';
import { clip } from '../rules/context-ops';
import { formatTodo } from '../state/todo';

const SECTIONS = ['Goal', 'Constraints', 'Completed actions', 'Current state', 'Open questions', 'Relevant files', 'Remaining work'];

export const SUMMARISER_SYSTEM =
  "You compress the working history of an AI agent so that it can go on with its task in less context. The agent will see only its system prompt, the user's first request, your summary and its most recent messages: everything else you are given is removed. " +
  'Keep every fact it needs to go on: file paths, commands and their outcomes, errors and their causes, decisions and why, names and values. ' +
  'Be brief and exact; write what happened, not what might have. Do not call tools and do not address the user.';

const HEADER = '[Context summary:';
const TODO_HEAD = '\n\nTodo list when this summary was written';

/** The summarising call's request: the task for reference, the previous summary to update, the messages it replaces. */
export function summaryRequest(task: string | undefined, previous: string | undefined, transcript: string): string {
  return [
    task ? `The user's first request (stays in the context verbatim; for reference):\n<request>\n${clip(task, 4_000)}\n</request>` : '',
    previous
      ? 'The summary written at the previous compression (update it: keep what still holds, add what the new messages show, drop what is obsolete; do not summarise it as a message):\n' +
        `<previous-summary>\n${previous}\n</previous-summary>`
      : '',
    `The messages to summarise, oldest first:\n<messages>\n${transcript}\n</messages>`,
    `Write the summary with exactly these sections, in this order, each a "## " heading followed by short bullet points ("- none" when empty): ${SECTIONS.join(', ')}.`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The message that takes the place of the summarised messages. The todo list is restated from the workflow's own copy. */
export function summaryMessage(body: string, replaced: number, compression: number, todo: TodoItem[]): string {
  const open = todo.some((t) => t.status === 'pending' || t.status === 'in_progress');
  return (
    `${HEADER} Hermes compressed ${replaced} earlier messages into this summary to keep the context within the model's window ` +
    `(compression ${compression}). The first request above and the messages after this one are verbatim.]\n\n${body}` +
    (open ? `${TODO_HEAD} (the todo tool keeps the current one):\n${formatTodo(todo)}` : '')
  );
}

/** The model-written part of a summary message, for the next compression to update. */
export function summaryBody(message: string): string {
  const start = message.startsWith(HEADER) ? message.indexOf('\n\n') + 2 : 0;
  const end = message.indexOf(TODO_HEAD);
  return message.slice(start, end < 0 ? undefined : end).trim();
}

export function isSummaryMessage(content: string | null): boolean {
  return Boolean(content?.startsWith(HEADER));
}
