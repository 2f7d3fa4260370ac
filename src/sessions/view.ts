// `session_view`: one past conversation's transcript, read from the conversation itself (the `context` query; a
// closed one answers by replaying on a worker), refused outside the caller's task queue and scope, and bounded: the
// head and the tail are kept, long messages cut.
import type { Client } from '@temporalio/client';
import { contextQuery } from '../shared/messages';
import { HermesScope, HermesStatus } from '../shared/search-attributes';
import type { ChatMessage, ContextSlice } from '../shared/wire';

export interface ViewOptions {
  taskQueue: string;
  /** The conversation must be filed under this scope; undefined: any. */
  scope?: string;
  /** Bound of the whole text (default 8,000 characters). */
  maxChars?: number;
}

export class SessionViewError extends Error {
  override name = 'SessionViewError';
}

const MESSAGE_CHARS = { user: 1_500, assistant: 1_500, tool: 300, call: 300 };

export async function viewSession(client: Client, id: string, o: ViewOptions): Promise<string> {
  const handle = client.workflow.getHandle(id);
  let d;
  try {
    d = await handle.describe();
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') throw new SessionViewError(`no conversation ${id}`);
    throw err;
  }
  // The same answer for "not a conversation" and "someone else's": a probe learns nothing about other scopes.
  const scope = d.typedSearchAttributes.get(HermesScope);
  if (d.type !== 'conversationWorkflow' || d.taskQueue !== o.taskQueue || (o.scope !== undefined && scope !== o.scope)) {
    throw new SessionViewError(`no conversation ${id}${o.scope !== undefined ? ` in scope "${o.scope}"` : ''}`);
  }
  // Without arguments the query tells the count and version (and the last messages); then the whole context.
  const head = await handle.query<ContextSlice>(contextQuery.name);
  const count = head.count ?? head.messages.length;
  const all: ContextSlice = count > head.messages.length ? await handle.query(contextQuery, { version: head.version, from: 0, to: count }) : head;
  const status = d.typedSearchAttributes.get(HermesStatus) ?? d.status.name.toLowerCase();
  const when = `started ${d.startTime.toISOString().slice(0, 16).replace('T', ' ')} UTC${d.closeTime ? `, closed ${d.closeTime.toISOString().slice(0, 16).replace('T', ' ')}` : ''}`;
  const header = `conversation ${id} · ${status} · ${when} · ${count} messages (system prompt left out)`;
  return bounded(header, all.messages.filter((m) => m.role !== 'system').map(line), o.maxChars ?? 8_000);
}

function cut(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}… [${s.length - n} more characters]` : s;
}

function line(m: ChatMessage): string {
  switch (m.role) {
    case 'user':
      return `[user] ${cut(m.content, MESSAGE_CHARS.user)}`;
    case 'tool':
      return `[tool result] ${cut(m.content, MESSAGE_CHARS.tool)}`;
    case 'assistant': {
      const calls = (m.tool_calls ?? []).map((c) => `[assistant calls] ${cut(`${c.function.name}(${c.function.arguments})`, MESSAGE_CHARS.call)}`);
      return [...(m.content ? [`[assistant] ${cut(m.content, MESSAGE_CHARS.assistant)}`] : []), ...calls].join('\n');
    }
    default:
      return '';
  }
}

/** The header, then as many lines from the start and from the end as fit in `max` characters. */
export function bounded(header: string, lines: string[], max: number): string {
  const whole = [header, ...lines].join('\n');
  if (whole.length <= max) return whole;
  const budget = max - header.length - 60;
  const headPart: string[] = [];
  const tailPart: string[] = [];
  let used = 0;
  let i = 0;
  let j = lines.length - 1;
  // The first request, then alternately from the end and the start: the conclusion matters as much as the question.
  for (let turn = 0; i <= j; turn++) {
    const fromEnd = turn % 2 === 1;
    const l = fromEnd ? lines[j]! : lines[i]!;
    if (used + l.length + 1 > budget) break;
    used += l.length + 1;
    if (fromEnd) tailPart.unshift(lines[j--]!);
    else headPart.push(lines[i++]!);
  }
  const left = j - i + 1;
  return [header, ...headPart, ...(left > 0 ? [`[… ${left} messages left out …]`] : []), ...tailPart].join('\n');
}
