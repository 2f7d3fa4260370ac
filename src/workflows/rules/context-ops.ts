// Context maintenance that needs no model call. Pure.
import type { ChatMessage } from '../../shared/wire';

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
const PRUNED_STUB = /^\[pruned: \d+ characters of earlier .* output\]$/;
export const isPrunedStub = (content: string): boolean => PRUNED_STUB.test(content);

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
  // Every short string argument in order (memory's action, store and text; a path and a pattern), so the
  // summary says what the call does, not only its first word.
  const strings = Object.values(args).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  return oneLine(strings.length ? strings.join(' · ') : JSON.stringify(args), max);
}

/** `text` on one line, at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// --- Compression (compress.ts decides when; these say what). Pure.

/** Messages at the end of the context a compression keeps verbatim (more when a tool call's results would be cut off). */
export const COMPRESS_KEEP_TAIL = 8;
/** Tool results up to this long stay as they are: a one-line summary would save nothing. */
const CONDENSE_MIN_CHARS = 200;
/** Old tool-call arguments longer than this (a write_file's content) lose their long strings. */
const ARGS_MIN_CHARS = 500;

/** What a context weighs in characters; the prompt-token estimate scales the last reported prompt tokens by it. */
export function contextChars(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) {
    n += 8 + (m.content?.length ?? 0);
    if (m.role === 'assistant') for (const tc of m.tool_calls ?? []) n += 24 + tc.function.name.length + tc.function.arguments.length;
  }
  return n;
}

/** Index just past the head a compression keeps verbatim: the system prompt and the first user request. */
export function headEnd(messages: readonly ChatMessage[]): number {
  const first = messages.findIndex((m) => m.role === 'user');
  return first < 0 ? Math.min(1, messages.length) : first + 1;
}

/**
 * Where the protected tail starts: at least `keep` messages before the end, and never between an assistant's
 * tool calls and their results (the tail then starts at the assistant message), never before `min`.
 */
export function tailStart(messages: readonly ChatMessage[], keep: number, min = 0): number {
  let at = Math.max(min, messages.length - keep);
  while (at > min && messages[at]?.role === 'tool') at--;
  return at;
}

/** The tool name and arguments of every tool message's call (from the assistant message before it). */
function callsOf(messages: ChatMessage[]): Map<number, { name: string; args: Record<string, unknown> }> {
  const out = new Map<number, { name: string; args: Record<string, unknown> }>();
  let calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  messages.forEach((m, i) => {
    if (m.role === 'assistant') {
      calls = new Map((m.tool_calls ?? []).map((tc) => [tc.id, { name: tc.function.name, args: parseArgs(tc.function.arguments) }]));
    } else if (m.role === 'tool') {
      out.set(i, calls.get(m.tool_call_id) ?? { name: 'tool', args: {} });
    }
  });
  return out;
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * One line that says what a tool call did, for a result a compression removes:
 * `[terminal] npm test → exit 1, 47 lines`, `[read_file] src/app.ts lines 1–200 of 340`.
 */
export function toolLine(name: string, args: Record<string, unknown>, content: string): string {
  // A repaired call's result starts with a note on how it was called and what ran.
  const repaired = content.startsWith('(called as "') ? /^\(called as ".*", ran (\S+)\)\n/.exec(content) : null;
  if (repaired) name = repaired[1]!;
  const body = repaired ? content.slice(repaired[0].length) : content;
  const lines = body.split('\n');
  const head = `[${name}]${Object.keys(args).length ? ` ${shortArgs(args)}` : ''}`;
  if (body.startsWith('Error')) return `${head} → ${oneLine(lines[0]!, 120)}`;
  const saved = /^\[full output \((\d+) characters\) saved to (.+?);/m.exec(body);
  const more = saved ? `, full output (${saved[1]} characters) in ${saved[2]}` : '';
  if (name === 'terminal') {
    const status = lines.slice(-3).find((l) => /^(exit code: -?\d+|timed out after|killed by signal)/.test(l)) ?? '';
    const exit = /^exit code: (-?\d+)$/.exec(status);
    const what = exit ? `exit ${exit[1]}` : status.startsWith('timed out') ? 'timed out' : status || 'done';
    return `${head} → ${what}, ${count(lines.length - 1, 'line')}${more}`;
  }
  if (name === 'read_file') {
    const page = /\[lines (\d+)-(\d+) of (\d+)/.exec(lines[lines.length - 1]!);
    if (page) return `[read_file] ${typeof args.path === 'string' ? args.path : shortArgs(args)} lines ${page[1]}–${page[2]} of ${page[3]}`;
  }
  return `${head} → ${count(lines.length, 'line')}, ${count(body.length, 'character')}${more}`;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * The compression's first phase, no model call: tool results before `end` become one-line summaries (an output
 * with an identical later copy says so), and long strings in the arguments of tool calls before `end` are cut.
 * The latest `todo` result stays whole (the model's plan). Changes `messages` in place; returns how many
 * messages changed.
 */
export function condenseToolOutputs(messages: ChatMessage[], end: number): number {
  const calls = callsOf(messages);
  const lastSeen = new Map<string, number>();
  let lastTodo = -1;
  messages.forEach((m, i) => {
    if (m.role !== 'tool') return;
    if (m.content.length > CONDENSE_MIN_CHARS) lastSeen.set(m.content, i);
    if (calls.get(i)?.name === 'todo') lastTodo = i;
  });
  let changed = 0;
  for (let i = 0; i < end; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant' && m.tool_calls?.some((tc) => tc.function.arguments.length > ARGS_MIN_CHARS)) {
      messages[i] = {
        ...m,
        tool_calls: m.tool_calls.map((tc) => ({ ...tc, function: { ...tc.function, arguments: cutArgs(tc.function.arguments) } })),
      };
      changed++;
    }
    if (m.role !== 'tool' || m.content.length <= CONDENSE_MIN_CHARS || i === lastTodo) continue;
    const call = calls.get(i)!;
    const later = lastSeen.get(m.content)!;
    const same = later > i ? ` (same output as call ${(messages[later] as { tool_call_id: string }).tool_call_id} later)` : '';
    messages[i] = { ...m, content: toolLine(call.name, call.args, m.content) + same };
    changed++;
  }
  return changed;
}

/** Tool-call arguments with long strings cut (still valid JSON); text that is not JSON stays. */
function cutArgs(text: string): string {
  if (text.length <= ARGS_MIN_CHARS) return text;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return text;
  }
  const cut = (x: unknown): unknown => {
    if (typeof x === 'string') return x.length > 200 ? `${x.slice(0, 80)}… [${x.length} characters, cut from the context]` : x;
    if (Array.isArray(x)) return x.map(cut);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, cut(y)]));
    return x;
  };
  const out = JSON.stringify(cut(v));
  return out.length < text.length ? out : text;
}

/**
 * The messages a summary replaces, as text for the summarising call: one block per message, each cut to its
 * share of `budget` characters (tool results get less: the calls and the model's words say more per character).
 */
export function transcript(messages: ChatMessage[], budget: number): string {
  const calls = callsOf(messages);
  const share = Math.max(200, Math.floor(budget / Math.max(1, messages.length)));
  const blocks = messages.map((m, i) => {
    if (m.role === 'tool') return `[${calls.get(i)?.name ?? 'tool'} result]\n${clip(m.content, Math.min(1_500, share))}`;
    const text = m.content ? clip(m.content, Math.min(3_000, share)) : '';
    const asked = m.role === 'assistant' ? (m.tool_calls ?? []).map((tc) => `→ ${tc.function.name} ${clip(tc.function.arguments, 300)}`) : [];
    return [`[${m.role}]`, text, ...asked].filter(Boolean).join('\n');
  });
  return clip(blocks.join('\n\n'), budget);
}
