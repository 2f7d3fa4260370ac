// Text tool-call mode: for servers that do not take `tools` (llama.cpp without --jinja, Ollama models without tool
// support, vLLM without --enable-auto-tool-choice) or models that ignore them. The request carries no `tools`: the
// system prompt describes the tools and one exact call format, earlier calls and results are written as text
// (such servers reject `tool` messages and assistant `tool_calls`), and the reply is parsed with recoverToolCalls.
// The workflow's messages stay in the native shape; only the request is rewritten.
import { APIError } from 'openai';
import type { ChatMessage } from '../shared/wire';
import type { toolDefinitions } from '../tools/registry';
import { CONVERSATION_HEADING } from '../workflows/prompts';

export type Definition = ReturnType<typeof toolDefinitions>[number];

/**
 * A text-mode reply without a call that writes a <tool_response> itself: the model invented a tool's result (seen
 * with Qwen2.5-Coder-1.5B: "I'll use list_dir" followed by a made-up result). Not an answer: why, for the correction.
 * (A `stop` sequence at <tool_response would save the tokens but leave "I'll use list_dir" looking like an answer.)
 */
export function inventedResult(text: string, tools: string[]): string | undefined {
  if (!text.includes('<tool_response')) return undefined;
  return `the reply contains a <tool_response> but no <tool_call>: results come from running the tool, so write the call and wait for its result; tools: ${tools.join(', ')}`;
}

/** The tool descriptions and the call format, as inserted into the system prompt. */
export function toolInstructions(defs: Definition[]): string {
  const lines = defs.map((d) => JSON.stringify({ name: d.function.name, description: d.function.description, parameters: d.function.parameters }));
  return [
    '## Calling tools',
    'To call a tool, write on a line of its own exactly:',
    '<tool_call>{"name": "TOOL_NAME", "arguments": {...}}</tool_call>',
    "with the tool's name and a JSON object of its arguments that matches its parameters. Write one such line per",
    'call; a reply may hold several. The results come back in the next message, each as',
    '<tool_response id="..." name="TOOL_NAME">...</tool_response>. When the task is done, reply with your final',
    'answer and no <tool_call>.',
    '',
    '## Tools',
    ...lines,
  ].join('\n');
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

type WireMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/**
 * The context as a server without tool support takes it: tool descriptions in the system message (before the
 * per-conversation part, so the prefix stays the same across conversations), calls and results as text, and
 * consecutive user messages joined (some chat templates demand alternating roles).
 */
/** `tools`: the definitions native mode would send (built-ins and the conversation's catalog tools). */
export function toTextMode(messages: ChatMessage[], tools: Definition[]): WireMessage[] {
  const names = new Map<string, string>();
  const out: WireMessage[] = [];
  const push = (m: WireMessage) => {
    const last = out[out.length - 1];
    if (last && last.role === 'user' && m.role === 'user') last.content = `${last.content}\n\n${m.content}`;
    else out.push(m);
  };
  for (const m of messages) {
    if (m.role === 'assistant') {
      const calls = m.tool_calls ?? [];
      for (const c of calls) names.set(c.id, c.function.name);
      const text = [m.content ?? '', ...calls.map((c) => callText(c.function.name, c.function.arguments))].filter(Boolean).join('\n');
      out.push({ role: 'assistant', content: text });
    } else if (m.role === 'tool') {
      const name = names.get(m.tool_call_id) ?? 'unknown';
      push({
        role: 'user',
        content: `<tool_response id=${JSON.stringify(m.tool_call_id)} name=${JSON.stringify(name)}>\n${m.content}\n</tool_response>`,
      });
    } else push({ role: m.role, content: m.content });
  }
  if (!tools.length) return out;
  const block = toolInstructions(tools);
  const system = out[0]?.role === 'system' ? out[0] : undefined;
  if (!system) return [{ role: 'system', content: block }, ...out];
  system.content = withToolBlock(system.content, block);
  return out;
}

/** Inserts the block before the per-conversation part (or at the end of a prompt that has none). */
function withToolBlock(prompt: string, block: string): string {
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
