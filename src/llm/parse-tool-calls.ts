// Some models (small local ones especially) write tool calls as text instead of using the tool_calls field.
// Recover the shapes real models write, so the loop treats them as real calls:
//   - markers: <tool_call>…</tool_call> (also unclosed), <|tool_call|>, <function_call>, <tools>…</tools>,
//     Llama's <|python_tag|>{…}, Mistral's [TOOL_CALLS][…] and [TOOL_CALLS]name[ARGS]{…};
//   - fenced JSON blocks;
//   - a JSON object or array starting the reply or a line, trailing prose allowed;
// with the key variants name/tool/tool_name, arguments/args/parameters/input, {"function": {…}}, arguments as an
// object or a JSON string, doubled braces ({{…}}) and raw newlines inside strings repaired.
// A JSON value outside a marker counts only when it is shaped like a call (only call keys), so ordinary JSON
// answers stay answers; it is executed only when it names an offered tool. A reply that looks like an attempted
// call but yields none is reported (`unparsed`) instead of passing for an answer.
import type { ToolCall } from '../shared/wire';

export interface TextToolCalls {
  /** Recovered calls, in reply order; empty when there are none. */
  calls: ToolCall[];
  /**
   * Set only when `calls` is empty and the reply looks like an attempted tool call that could not be recovered:
   * why, in one short sentence for a correction to the model.
   */
  unparsed?: string;
}

/** Calls recovered from a reply's text (see the file comment); ids are `${idPrefix}_${i}`. */
export function recoverToolCalls(text: string, toolNames: string[], idPrefix: string): TextToolCalls {
  const known = new Set(toolNames);
  const found: Found = { items: [], problems: [] };
  fromMarkers(text, found);
  if (!found.items.length && !found.problems.length) fromFences(text, found);
  if (!found.items.length && !found.problems.length) fromLines(text, found);

  // The same call written again in one reply is one call: a looping small model wrote three calls over and over,
  // and each repeat would come back with the whole first result (run-tools.ts), 530 of them overflowing the window.
  const seen = new Set<string>();
  const calls = found.items
    .filter((i): i is CallItem => i.kind === 'call')
    .filter((c) => {
      const key = `${c.name}\u0000${c.arguments}`;
      return !seen.has(key) && Boolean(seen.add(key));
    });
  if (calls.some((c) => known.has(c.name))) {
    // Calls to tools that are not offered go along: the workflow answers each with "unknown tool".
    return { calls: calls.map((c, i) => ({ id: `${idPrefix}_${i}`, type: 'function', function: { name: c.name, arguments: c.arguments } })) };
  }
  const unknown = [...new Set(calls.map((c) => c.name))];
  const reason =
    found.problems[0] ??
    (unknown.length ? `it names ${unknown.join(', ')}, which ${unknown.length > 1 ? 'are not tools' : 'is not a tool'} here` : undefined);
  if (!reason) return { calls: [] };
  const tools = toolNames.length ? `tools: ${toolNames.join(', ')}` : 'no tools are offered';
  return { calls: [], unparsed: clip(`${reason}; ${tools}`, 600) };
}

/** Only the recovered calls (see recoverToolCalls). */
export function parseToolCallsFromText(text: string, toolNames: string[], idPrefix: string): ToolCall[] {
  return recoverToolCalls(text, toolNames, idPrefix).calls;
}

interface CallItem {
  kind: 'call';
  name: string;
  arguments: string;
}
type Item = CallItem | { kind: 'other'; why: string };
interface Found {
  items: Item[];
  problems: string[];
}

// Opening markers; what follows each is read as JSON up to the first thing that is not JSON (a closing tag, prose).
// <tool_response …> is the results' tag: a call written inside it counts (only one shaped like a call), anything
// else there is a made-up result, which the model activity answers with a correction (text-mode.ts inventedResult).
// Its attributes are [^<>]*, not [^>]*: many unclosed <tool_response tags were each scanned to the end (quadratic).
const MARKERS = /<tool_call>|<\|tool_call\|>|<tool_calls>|<function_call>|<tools>|<\|python_tag\|>|\[TOOL_CALLS\]|<tool_response\b[^<>]*>/g;
// Mistral's newer form: [TOOL_CALLS]name[ARGS]{…} (optionally [CALL_ID]id before [ARGS]).
const MISTRAL_NAMED = /^\s*([\w.-]+)\s*(?:\[CALL_ID\]\s*\S+?\s*)?\[ARGS\]/;

/**
 * Characters the markers' JSON may be read over, all told. A value that never closes is read to the text's end
 * (then repaired and parsed a few ways), and 64 markers of a 1 MB reply made that 15 s of the model activity, past its
 * heartbeat timeout. An ordinary reply (64 markers over 64 KB at most) stays far below.
 */
const MARKER_READ_BUDGET = 4_000_000;

function fromMarkers(text: string, found: Found): void {
  // Bounded like fromLines: each marker's JSON may be read to the text's end.
  let budget = MARKER_READ_BUDGET;
  for (const m of [...text.matchAll(MARKERS)].slice(0, 64)) {
    if (budget <= 0) break;
    const marker = m[0];
    let rest = text.slice(m.index + marker.length);
    let named: string | undefined;
    if (marker === '[TOOL_CALLS]') {
      const nm = MISTRAL_NAMED.exec(rest);
      if (nm) {
        named = nm[1];
        rest = rest.slice(nm[0].length);
      }
    }
    const read = readJsonValues(rest);
    budget -= Math.max(read.end, 1);
    if (marker.startsWith('<tool_response')) {
      for (const value of read.values) {
        const item = asCall(value, false);
        if (item.kind === 'call') found.items.push(item);
      }
      continue;
    }
    // The calls before a value that does not parse still count (a plan of calls, the later one broken).
    const parsed = read.values.flatMap((v) => (Array.isArray(v) ? (v as unknown[]) : [v])).map((v) => asCall(v, true));
    if (read.error !== undefined || !read.values.length) {
      if (named === undefined) for (const item of parsed) if (item.kind === 'call') found.items.push(item);
      if (!parsed.some((i) => i.kind === 'call'))
        found.problems.push(read.error !== undefined ? `the JSON after ${marker} does not parse: ${read.error}` : `no JSON object follows ${marker}`);
      continue;
    }
    if (named !== undefined) {
      const args = read.values[0];
      found.items.push({ kind: 'call', name: named, arguments: argumentsJson(args) });
      continue;
    }
    for (const value of read.values.flatMap((v) => (Array.isArray(v) ? (v as unknown[]) : [v]))) {
      const item = asCall(value, true);
      if (item.kind === 'call') found.items.push(item);
      else found.problems.push(`the JSON after ${marker} ${item.why}`);
    }
  }
}

const FENCED = /```[ \t]*(?:json|tool_call|tool|tools|function_call)?[ \t]*\r?\n?([\s\S]*?)```/g;

/**
 * The calls of the first fenced block that holds any: a reply that spreads calls over several blocks with prose
 * between them narrates a plan (seen with Qwen2.5-Coder-1.5B: a list_dir block, "Let's assume the output is …", then
 * patch blocks built on the assumed output); its first block is the next step, the rest depend on results it made up.
 */
function fromFences(text: string, found: Found): void {
  for (const m of text.matchAll(FENCED)) {
    const before = found.items.length;
    fromJsonAt(m[1]!, 0, found);
    if (found.items.slice(before).some((i) => i.kind === 'call')) return;
  }
}

/** JSON values that start the reply or a line; for a reply that is a bare call, maybe followed by prose. */
function fromLines(text: string, found: Found): void {
  const line = /^[ \t]*[[{]/gm;
  let m: RegExpExecArray | null;
  // Bounded: a value that never closes is read to the text's end.
  for (let tries = 0; tries < 20 && (m = line.exec(text)); tries++) {
    const start = m.index + m[0].length - 1;
    const read = fromJsonAt(text, start, found);
    // After a value that did not parse, go on at the next line: it may have swallowed a call below it.
    line.lastIndex = read.ok ? read.end : start + 1;
  }
}

/**
 * Reads the JSON values at `start` of `text`, adds those shaped like calls (or a parse failure of something that
 * looks like a call) to `found`; says whether it parsed and where reading stopped.
 */
function fromJsonAt(text: string, start: number, found: Found): { ok: boolean; end: number } {
  const read = readJsonValues(text.slice(start));
  if (read.error !== undefined) {
    // The calls before the value that does not parse still count (seen: a fenced plan of three calls, the third
    // one's string unterminated); only when there are none is the reply an unreadable call.
    const before = read.values.flatMap((v) => (Array.isArray(v) ? (v as unknown[]) : [v])).map((v) => asCall(v, false));
    for (const item of before) if (item.kind === 'call') found.items.push(item);
    if (!before.some((i) => i.kind === 'call') && LOOKS_LIKE_CALL.test(text.slice(start, start + 2000))) {
      found.problems.push(`the reply looks like a tool call, but its JSON does not parse: ${read.error}`);
    }
    return { ok: false, end: start + read.end };
  }
  const values = read.values.flatMap((v) => (Array.isArray(v) ? (v as unknown[]) : [v]));
  for (const value of values) {
    const item = asCall(value, false);
    if (item.kind === 'call') found.items.push(item);
  }
  return { ok: true, end: start + read.end };
}

// Something with a name-ish key and an arguments-ish key: an attempted call even when its JSON is broken.
const LOOKS_LIKE_CALL = /^\s*[[{]+\s*"(?:name|tool|tool_name|function)"\s*:[\s\S]*"(?:arguments|args|parameters|input)"\s*:/;

const NAME_KEYS = ['name', 'tool', 'tool_name'] as const;
const ARG_KEYS = ['arguments', 'args', 'parameters', 'input'] as const;
const CALL_KEYS = new Set<string>([...NAME_KEYS, ...ARG_KEYS, 'function', 'id', 'type', 'call_id']);

/**
 * A call, when `value` is shaped like one. `lenient` (after a marker): any object with a name counts, its other
 * keys taken as the arguments when there is no arguments key. Otherwise only call keys may appear, and an
 * arguments key (or a nested "function") must.
 */
function asCall(value: unknown, lenient: boolean): Item {
  if (!isObject(value)) return { kind: 'other', why: 'is not an object with a tool "name"' };
  const fnValue = value.function;
  const fn = isObject(fnValue) ? fnValue : value;
  let name: unknown = NAME_KEYS.map((k) => fn[k]).find((v) => v !== undefined);
  if (name === undefined && typeof fnValue === 'string') name = fnValue;
  if (typeof name !== 'string' || !name) return { kind: 'other', why: 'has no tool "name"' };
  const argKey = ARG_KEYS.find((k) => Object.hasOwn(fn, k));
  const args = argKey ? fn[argKey] : undefined;
  if (typeof fn.description === 'string' && argKey === 'parameters' && isObject(args) && ('properties' in args || args.type === 'object')) {
    return { kind: 'other', why: `is the definition of ${name}, not a call to it` };
  }
  if (!lenient && (!Object.keys(value).every((k) => CALL_KEYS.has(k)) || (!argKey && fn === value))) {
    return { kind: 'other', why: 'is not a tool call' };
  }
  if (!argKey && lenient && fn === value) {
    const rest = Object.fromEntries(Object.entries(value).filter(([k]) => !CALL_KEYS.has(k)));
    return { kind: 'call', name, arguments: JSON.stringify(rest) };
  }
  return { kind: 'call', name, arguments: argumentsJson(args) };
}

/** Arguments as JSON text: an object is written out; a string is taken as the JSON text it should be. */
function argumentsJson(args: unknown): string {
  if (args === undefined || args === null || args === '') return '{}';
  if (typeof args === 'string') {
    try {
      const parsed: unknown = JSON.parse(args);
      return isObject(parsed) ? JSON.stringify(parsed) : args;
    } catch {
      return args; // the workflow answers malformed arguments with an error the model can read
    }
  }
  return JSON.stringify(args);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

interface ReadResult {
  values: unknown[];
  /** Why the first value that started did not parse. */
  error?: string;
  /** Index in the text where reading stopped. */
  end: number;
}

/**
 * JSON values (objects, arrays) at the start of `text`, separated by whitespace, commas or semicolons; reading
 * stops at anything else (prose, a closing tag). A fence opener before and fence after are skipped.
 */
function readJsonValues(text: string): ReadResult {
  const values: unknown[] = [];
  let i = 0;
  const skip = (re: RegExp) => {
    re.lastIndex = i;
    const m = re.exec(text);
    if (m) i += m[0].length;
  };
  skip(/\s*(?:```[ \t]*\w*[ \t]*\r?\n)?/y);
  for (;;) {
    skip(values.length ? /[\s,;]*/y : /\s*/y);
    const c = text[i];
    if (c !== '{' && c !== '[') break;
    const span = scan(text, i);
    const parsed = parseRepaired(text.slice(i, span.end), span);
    if ('error' in parsed) return { values, error: parsed.error, end: span.end };
    values.push(parsed.value);
    i = span.end;
  }
  return { values, end: i };
}

interface Span {
  /** End (exclusive) of the balanced value, or the text's end when it never closes. */
  end: number;
  /** Closers missing at the text's end ('' when balanced). */
  missing: string;
  /** The value with raw control characters inside strings escaped (only when there were any). */
  escaped?: string;
}

/** The extent of the JSON value starting at `start` (an opening bracket), by bracket depth outside strings. */
function scan(text: string, start: number): Span {
  const stack: string[] = [];
  let inString = false;
  let out = '';
  let changed = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') {
        out += c + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '"') inString = false;
      else if (c === '\n' || c === '\r' || c === '\t') {
        out += c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t';
        changed = true;
        continue;
      }
      out += c;
      continue;
    }
    out += c;
    if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      stack.pop();
      if (!stack.length) return { end: i + 1, missing: '', ...(changed ? { escaped: out } : {}) };
    }
  }
  return { end: text.length, missing: stack.reverse().join(''), ...(changed ? { escaped: out } : {}) };
}

/** JSON.parse, then the repairs small models need: raw newlines in strings, doubled braces, missing closers. */
function parseRepaired(raw: string, span: Span): { value: unknown } | { error: string } {
  const base = span.escaped ?? raw;
  const tries = [base];
  if (base.startsWith('{{')) {
    tries.push(base.slice(1, base.endsWith('}}') ? -1 : undefined), base.replace(/\{\{/g, '{').replace(/\}\}/g, '}'));
  }
  if (span.missing) tries.push(base.trimEnd() + span.missing);
  const quoted = escapeStrayQuotes(base);
  if (quoted !== base) tries.push(quoted, ...(span.missing ? [quoted.trimEnd() + span.missing] : []));
  let first: string | undefined;
  for (const t of tries) {
    try {
      return { value: JSON.parse(t) };
    } catch (err) {
      first ??= err instanceof Error ? err.message : String(err);
    }
  }
  return { error: clip(first ?? 'not JSON', 200) };
}

/**
 * Escapes quotes a model left unescaped inside a string value, e.g. a Python docstring in a file's content
 * (`"content": "def f():\n    """Doc."""\n"` written with bare `"""`; seen with Qwen2.5-Coder-1.5B): inside
 * a string, a bare quote ends it when the next character can follow a string — `,` `}` `]` `:`, a space or the
 * end; a bare quote right before anything else is taken as part of the text. Used only after JSON.parse failed.
 */
function escapeStrayQuotes(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString && c === '\\') {
      out += c + (text[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '"') {
      if (!inString) inString = true;
      else if (i + 1 >= text.length || /[\s,}\]:]/.test(text[i + 1]!)) inString = false;
      else {
        out += '\\"';
        continue;
      }
    }
    out += c;
  }
  return out;
}
