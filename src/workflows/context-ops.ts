// Context maintenance that needs no model call. Pure.
import type { ChatMessage } from '../shared/wire';

/**
 * Replaces the content of tool results outside the protected tail with a one-line stub. Returns how many
 * characters were removed; the caller bumps the context version when anything changed.
 */
export function pruneToolOutputs(messages: ChatMessage[], keepTail: number, minChars = 200): number {
  let removed = 0;
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const tc of m.tool_calls ?? []) names.set(tc.id, tc.function.name);
  }
  const end = Math.max(0, messages.length - keepTail);
  for (let i = 0; i < end; i++) {
    const m = messages[i]!;
    if (m.role !== 'tool' || m.content.length <= minChars) continue;
    const stub = `[pruned: ${m.content.length} characters of earlier ${names.get(m.tool_call_id) ?? 'tool'} output]`;
    removed += m.content.length - stub.length;
    messages[i] = { ...m, content: stub };
  }
  return removed;
}

/** Messages at the end of the context that a prune never touches (the model's current work). */
export const PRUNE_KEEP_TAIL = 6;

/** What a stub written by pruneToolOutputs looks like. */
export const PRUNED_STUB = /^\[pruned: \d+ characters of earlier .* output\]$/;

/**
 * The tool message the model reads for a tool activity's result. `hermes inspect` rebuilds pruned messages
 * with it, so both must stay one function.
 */
export function toolMessageContent(content: string, ran: string, calledAs: string | undefined, outputLimit: number): string {
  const note = calledAs ? `(called as "${calledAs}", ran ${ran})\n` : '';
  // The activity already truncated; this backstop keeps history bounded whatever the worker returns.
  return clip(note + content, outputLimit + 1_000);
}

/** Backstop for results that reach the workflow larger than the limit (the activity already truncates). */
export function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.floor(limit * 0.7);
  const tail = limit - head;
  return `${text.slice(0, head)}\n[... ${text.length - limit} characters omitted ...]\n${text.slice(-tail)}`;
}

export function shortArgs(args: Record<string, unknown>, max = 60): string {
  const first = Object.values(args).find((v) => typeof v === 'string') as string | undefined;
  const text = first ?? JSON.stringify(args);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
