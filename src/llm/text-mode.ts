// Text tool-call mode: for servers that do not take `tools` (llama.cpp without --jinja, Ollama models without tool
// support, vLLM without --enable-auto-tool-choice) or models that ignore them. The request carries no `tools`: the
// system prompt describes the tools and one exact call format, earlier calls and results are written as text
// (such servers reject `tool` messages and assistant `tool_calls`), and the reply is parsed with recoverToolCalls.
// The workflow's messages stay in the native shape; only the request is rewritten.
import { APIError } from 'openai';
import type { ChatMessage } from '../shared/wire';
import type { toolDefinitions } from '../tools/registry';
import { CONVERSATION_HEADING, inventedResultReason, REMOVED_RESULTS, TEXT_MODE_CALL_FORMAT, TEXT_MODE_CALL_RULES } from '../shared/texts';

export type Definition = ReturnType<typeof toolDefinitions>[number];

/**
 * A reply without a call that writes a <tool_response> itself: the model invented a tool's result, or used the
 * results' tag as if it were the calls' (seen with Qwen2.5-Coder-1.5B: `<tool_response id="1" name="list_dir">src/
 * </tool_response>`, three times in a row). Neither is an answer nor a result: why, for the correction, with the
 * call written out for each tool the tags name, so the model sees exactly what to write instead.
 * (A `stop` sequence at <tool_response would save the tokens but leave "I'll use list_dir" looking like an answer.)
 */
export function inventedResult(text: string, tools: Definition[]): string | undefined {
  if (!RESULT_TAG.test(text)) return undefined;
  // [^<>]: a tag ends its scan at the next tag (with [^>] many unclosed tags were each scanned to the end: quadratic).
  const named = [...text.matchAll(/<tool_response\b[^<>]*\bname\s*=\s*["']?([\w.-]+)/g)].map((m) => m[1]!);
  const known = [...new Set(named)].map((n) => tools.find((d) => d.function.name === n)).filter((d) => d !== undefined);
  const how = known.length
    ? `; to call ${known.map((d) => d.function.name).join(' or ')}, write ${known.slice(0, 3).map(callSkeleton).join(' or ')}`
    : '';
  return `${inventedResultReason(tools.map((d) => d.function.name))}${how}`;
}

const RESULT_TAG = /<tool_response\b/;

/** The text holds a <tool_response> tag: only then can it quote or invent a result. */
export function holdsResults(text: string): boolean {
  return RESULT_TAG.test(text);
}
// [^<>] as in inventedResult: linear on many unclosed tags.
const RESULT_BLOCK = /<tool_response\b[^<>]*>([\s\S]*?)(?:<\/tool_response>|$)/g;

/**
 * A reply whose <tool_response> blocks only repeat results the conversation already holds: the model quoting what
 * a tool said, not inventing it (seen in native mode with Qwen2.5-Coder-1.5B after write_file ran: its last reply
 * was `<tool_response>Wrote 14 bytes to …/hello.txt</tool_response>`, corrected as made-up five times until the run
 * stopped). That is an answer: the text with the tags taken off. `results`: the tool results in the request.
 * A block quotes a result when it is that result, or a piece of one of at least QUOTE_MIN characters ("3" is in
 * most results and quotes none).
 */
export function quotedResults(text: string, results: string[]): string | undefined {
  const blocks = [...text.matchAll(RESULT_BLOCK)].map((m) => m[1]!);
  if (!blocks.length || !results.length) return undefined;
  const known = results.map(flat);
  const quotes = (inner: string) =>
    innerTexts(inner).some((q) => q.length > 0 && known.some((r) => r === q || (q.length >= QUOTE_MIN && r.includes(q))));
  if (!blocks.every(quotes)) return undefined;
  return text.replace(RESULT_BLOCK, (_, inner: string) => inner.trim()).trim();
}

const QUOTE_MIN = 24;
const flat = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The block's text, and the strings of a JSON object it holds (Qwen's template writes `{"name": …, "content": …}`). */
function innerTexts(inner: string): string[] {
  const out = [flat(inner)];
  try {
    const v: unknown = JSON.parse(inner);
    if (v && typeof v === 'object') for (const x of Object.values(v)) if (typeof x === 'string') out.push(flat(x));
  } catch {
    // not JSON: the text itself
  }
  return out;
}

/** `<tool_call>{"name": "write_file", "arguments": {"path": "...", "content": "..."}}</tool_call>`: its required parameters, else its first. */
function callSkeleton(d: Definition): string {
  const params = d.function.parameters as { properties?: Record<string, unknown>; required?: string[] };
  const keys = params.required?.length ? params.required : Object.keys(params.properties ?? {}).slice(0, 1);
  const args = Object.fromEntries(keys.map((k) => [k, '...']));
  return `<tool_call>${JSON.stringify({ name: d.function.name, arguments: args })}</tool_call>`;
}

/** The tool descriptions and the call format, as inserted into the system prompt. */
export function toolInstructions(defs: Definition[]): string {
  const lines = defs.map((d) =>
    JSON.stringify({ type: 'function', function: { name: d.function.name, description: d.function.description, parameters: d.function.parameters } }),
  );
  return [TEXT_MODE_CALL_FORMAT, '<tools>', ...lines, '</tools>', '', TEXT_MODE_CALL_RULES].join('\n');
}

/** One call as text, in the format toolInstructions asks for (arguments embedded as JSON when they are JSON). */
export function callText(name: string, args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    parsed = args; // kept as a JSON string: what the model wrote, unreadable as it was
  }
  return `<tool_call>{"name": ${JSON.stringify(name)}, "arguments": ${JSON.stringify(parsed)}}</tool_call>`;
}

export type WireMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** How a rewrite writes an earlier reply and a tool's result as text. */
export interface TextRenderers {
  /** The reply as one assistant message, or as the exchange it was (constrained.ts: a step, then its body). */
  assistant: (m: Extract<ChatMessage, { role: 'assistant' }>) => string | WireMessage[];
  result: (m: Extract<ChatMessage, { role: 'tool' }>) => string;
}

/**
 * The messages as a server without `tool` messages takes them: replies and results as text, consecutive user
 * messages joined (some chat templates demand alternating roles).
 */
export function rewriteForText(messages: ChatMessage[], render: TextRenderers): WireMessage[] {
  const out: WireMessage[] = [];
  const push = (m: WireMessage) => {
    const last = out[out.length - 1];
    if (last && last.role === 'user' && m.role === 'user') last.content = `${last.content}\n\n${m.content}`;
    else out.push(m);
  };
  for (const m of messages) {
    if (m.role === 'assistant') {
      const r = render.assistant(m);
      if (typeof r === 'string') out.push({ role: 'assistant', content: r });
      else for (const w of r) push(w);
    } else if (m.role === 'tool') push({ role: 'user', content: render.result(m) });
    else push({ role: m.role, content: m.content });
  }
  return out;
}

/**
 * The context as a server without tool support takes it: tool descriptions in the system message (before the
 * per-conversation part, so the prefix stays the same across conversations), calls and results as text.
 * `tools`: the definitions native mode would send (built-ins and the conversation's catalog tools).
 */
export function toTextMode(messages: ChatMessage[], tools: Definition[]): WireMessage[] {
  const out = rewriteForText(messages, {
    assistant: (m) =>
      [withoutResults(m.content ?? ''), ...(m.tool_calls ?? []).map((c) => callText(c.function.name, c.function.arguments))]
        .filter(Boolean)
        .join('\n'),
    // Results as Qwen's own template writes them (no attributes): with `id` and `name` attributes the tag looked
    // like a call, and the 1.5B model wrote its calls in it (`<tool_response name="list_dir">src/</tool_response>`).
    // One block per call, in the order of the calls, as that template pairs them.
    result: (m) => `<tool_response>\n${m.content}\n</tool_response>`,
  });
  if (!tools.length) return out;
  const block = toolInstructions(tools);
  const system = out[0]?.role === 'system' ? out[0] : undefined;
  if (!system) return [{ role: 'system', content: block }, ...out];
  system.content = withToolBlock(system.content, block);
  return out;
}

/**
 * An earlier reply as the model sees it again: without the tool results it wrote itself (inventedResult). Shown
 * back, a made-up <tool_response> is an example the model copies in its next reply; the correction after it says
 * what was wrong. The workflow's transcript keeps the reply as it was.
 */
function withoutResults(text: string): string {
  if (!RESULT_TAG.test(text)) return text;
  const kept = text.replace(RESULT_BLOCK, '').trim();
  return kept || REMOVED_RESULTS;
}

/** Inserts the block before the per-conversation part (or at the end of a prompt that has none). */
export function withToolBlock(prompt: string, block: string): string {
  const at = prompt.indexOf(`\n\n${CONVERSATION_HEADING}\n`);
  if (at < 0) return `${prompt}\n\n${block}`;
  return `${prompt.slice(0, at)}\n\n${block}${prompt.slice(at)}`;
}

// What servers answer when they do not take `tools` (quoted from their issue trackers):
//   llama.cpp without --jinja: 500 (400 in some versions) "tools param requires --jinja flag";
//   Ollama, a model whose template has no tools: 400 "<model> does not support tools";
//   vLLM without --enable-auto-tool-choice: 400 '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';
//   servers that reject unknown request fields: "Unrecognized request argument supplied: tools", "extra fields not permitted".
const TOOLS_REJECTED = [
  /tools? param(eter)?s? (is |are )?(requires|not supported|unsupported)/i,
  /does(n't| not) support (tools|tool[ _]?(use|calling|calls)|function[ _]?calling|functions)/i,
  /(tools|tool[ _]?calling|tool[ _]?use|function[ _]?calling|functions) (is |are )?(not supported|unsupported|not enabled|disabled)/i,
  /tool[ _]?choice.*requires|enable-auto-tool-choice/i,
  /(unrecognized|unknown|unsupported|unexpected|extra)\b[^.]{0,40}\b(tools|functions)\b/i,
];

/** The endpoint refused the request because it carried `tools` (not auth, not rate limiting). */
export function rejectsTools(err: unknown): boolean {
  if (!(err instanceof APIError) || typeof err.status !== 'number') return false;
  if (err.status < 400 || [401, 403, 408, 429].includes(err.status)) return false;
  return TOOLS_REJECTED.some((re) => re.test(err.message));
}
