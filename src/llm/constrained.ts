// Constrained step mode: every model step asks the endpoint for one JSON object that must be exactly one of the
// offered tools' calls or the final answer (`response_format: json_schema`; llama.cpp, vLLM, SGLang, LM Studio and
// Ollama turn the schema into a grammar). A small model cannot then write a call in a format nobody reads, announce
// a call instead of making it, or end the task with a sentence about what it will do next: only the answer object
// ends a turn. The request carries no `tools`: the system prompt lists them once, earlier calls are shown back as
// the objects the model wrote, results as the next user message. The workflow's messages stay in the native shape.
import { APIError } from 'openai';
import type { ChatMessage, ToolCall } from '../shared/wire';
import { CONSTRAINED_STEP_RULES } from '../shared/texts';
import { FINISH_RULE } from '../shared/system-prompt';
import { rewriteForText, withToolBlock, type Definition, type WireMessage } from './text-mode';
import { bodyHint, bodyParam, bodyRequest, splitBody, withoutBody } from './constrained-body';

/** The name of the step that ends the turn; another name when a tool is called that already. */
export function answerName(defs: Definition[]): string {
  const taken = new Set(defs.map((d) => d.function.name));
  return taken.has('answer') ? 'final_answer' : 'answer';
}

type JsonSchema = Record<string, unknown>;

/** The arguments' schema as the grammar needs it: an object, closed unless it says otherwise. */
function argumentsSchema(parameters: unknown): JsonSchema {
  const p = (parameters && typeof parameters === 'object' ? parameters : {}) as JsonSchema;
  const { $schema: _drop, ...rest } = p;
  return { type: 'object', additionalProperties: false, properties: {}, ...rest };
}

/**
 * Characters of the thought a tool step starts with. Written before the tool is chosen, it lets a small model say
 * what it knows and what the step must do before it commits to a call. Measured with a 1.5B model on
 * examples/eval-small (3 repeats each, docs/guides/small-models.md): 12/18 with it against 11/18 without; a thought
 * before the answer too did worse (5/12 when stopped), and thoughts shown back in the context made it loop.
 */
const THOUGHT_CHARS = 300;

/**
 * Characters of the answer. The grammar closes the string there: a 1.5B model caught in a loop ("The current
 * implementation returns the sum…" over and over) otherwise wrote until the reply's token limit (4,096 tokens, 250 s
 * on 2 cores), and the cut reply was no step at all, so it was asked again, and looped again.
 */
const ANSWER_CHARS = 4000;

function stepObject(name: string, args: JsonSchema, thought: boolean): JsonSchema {
  const tool = { tool: { const: name }, arguments: args };
  return {
    type: 'object',
    properties: thought ? { thought: { type: 'string', maxLength: THOUGHT_CHARS }, ...tool } : tool,
    required: thought ? ['thought', 'tool', 'arguments'] : ['tool', 'arguments'],
    additionalProperties: false,
  };
}

/** `oneOf` one object per offered tool `{"tool": NAME, "arguments": <its parameters>}`, plus the answer. */
export function stepSchema(defs: Definition[]): JsonSchema {
  const answer = stepObject(
    answerName(defs),
    { type: 'object', properties: { text: { type: 'string', maxLength: ANSWER_CHARS } }, required: ['text'], additionalProperties: false },
    false,
  );
  return { oneOf: [...defs.map((d) => stepObject(d.function.name, stepArguments(d), true)), answer] };
}

/** A tool's arguments in the step: its parameters, less a body written in the next message (constrained-body.ts). */
function stepArguments(d: Definition): JsonSchema {
  const schema = argumentsSchema(d.function.parameters);
  const body = bodyParam(d);
  return body ? withoutBody(schema, body) : schema;
}

/** The `response_format` of a constrained step. */
export function stepFormat(defs: Definition[]) {
  return { type: 'json_schema' as const, json_schema: { name: 'step', schema: stepSchema(defs) } };
}

/** One line per tool: `name {"path": string, "offset"?: integer}: description` (shorter than its JSON schema). */
function signature(d: Definition): string {
  const params = d.function.parameters as { properties?: Record<string, { type?: unknown; enum?: unknown[] }>; required?: string[] };
  const required = new Set(params.required ?? []);
  const body = bodyParam(d);
  const fields = Object.entries(params.properties ?? {})
    .filter(([k]) => k !== body)
    .map(([k, v]) => {
      const type = Array.isArray(v.enum) ? v.enum.map((e) => JSON.stringify(e)).join('|') : typeof v.type === 'string' ? v.type : 'any';
      return `"${k}"${required.has(k) ? '' : '?'}: ${type}`;
    });
  return `- ${d.function.name} {${fields.join(', ')}}: ${d.function.description}${body ? bodyHint(body) : ''}`;
}

/** The tool list and the step format, as inserted into the system prompt. */
export function constrainedInstructions(defs: Definition[]): string {
  return ['# Tools', ...defs.map(signature), '', CONSTRAINED_STEP_RULES(answerName(defs))].join('\n');
}

/** A step as the model wrote it, less its thought: `{"tool": …, "arguments": …}` (arguments as JSON when they are). */
export function stepText(name: string, args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    parsed = args;
  }
  return JSON.stringify({ tool: name, arguments: parsed });
}

/**
 * What heads a result. Sent as a user message, a bare "Result of read_file:" read to a 1.5B model as a question
 * about the result, and it answered with an explanation of the file (0 of 6 samples took a next step at that point
 * of csv-to-json; 4 of 8 with this head).
 */
const RESULT_HEAD = 'returned (a tool result, not a request; the task goes on until your answer step)';

// builtSystemPrompt's `Tools: a, b.` line: the tool block below lists them with their arguments.
const TOOLS_LINE = /\nTools: [^\n]*\.\n/;

/** The context as a constrained step sends it: tools in the system message, steps and results as text. */
export function toConstrainedMode(messages: ChatMessage[], defs: Definition[]): WireMessage[] {
  const answer = answerName(defs);
  const names = new Map<string, string>();
  const out = rewriteForText(messages, {
    assistant: (m) => {
      const calls = m.tool_calls ?? [];
      for (const c of calls) names.set(c.id, c.function.name);
      // Without the thought: a small model copies its earlier thoughts ("I will check again") into a loop.
      const body = calls.length === 1 ? splitBody(calls[0]!, defs) : undefined;
      if (body) {
        // As it was asked: the step, the request for its body, the body (the server's prompt cache reuses it).
        return [
          { role: 'assistant', content: stepText(calls[0]!.function.name, body.args) },
          { role: 'user', content: bodyRequest(calls[0]!, body.param) },
          { role: 'assistant', content: body.body },
        ];
      }
      if (calls.length) return calls.map((c) => stepText(c.function.name, c.function.arguments)).join('\n');
      return JSON.stringify({ tool: answer, arguments: { text: m.content ?? '' } });
    },
    result: (m) => `${names.get(m.tool_call_id) ?? 'The tool'} ${RESULT_HEAD}:\n${m.content}`,
  });
  const block = constrainedInstructions(defs);
  const system = out[0]?.role === 'system' ? out[0] : undefined;
  if (!system) return [{ role: 'system', content: block }, ...out];
  const finish = `- Finish with the ${answer} step: the answer, or what you did and how you checked it, and anything left open.`;
  system.content = withToolBlock(system.content.replace(FINISH_RULE.join('\n'), finish).replace(TOOLS_LINE, ''), block);
  return out;
}

export type ParsedStep =
  { kind: 'call'; call: ToolCall; thought?: string } | { kind: 'answer'; text: string } | { kind: 'unreadable'; reason: string };

/** The reply of a constrained step. A grammar makes it valid; a server that ignored the schema may not. */
export function parseStep(content: string | null, defs: Definition[], id: string): ParsedStep {
  const text = (content ?? '').trim();
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { kind: 'unreadable', reason: `the reply is not one JSON step object (${(err as Error).message.slice(0, 80)})` };
  }
  const o = v as { thought?: unknown; tool?: unknown; arguments?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.tool !== 'string') {
    return { kind: 'unreadable', reason: 'the reply is not a step object {"tool": NAME, "arguments": {…}}' };
  }
  if (o.tool === answerName(defs)) {
    const t = (o.arguments as { text?: unknown } | null)?.text;
    if (typeof t === 'string') return { kind: 'answer', text: t };
    return { kind: 'unreadable', reason: 'the answer step has no "text"' };
  }
  const args = o.arguments === undefined ? '{}' : JSON.stringify(o.arguments);
  const thought = typeof o.thought === 'string' && o.thought.trim() ? o.thought.trim() : undefined;
  return { kind: 'call', call: { id, type: 'function', function: { name: o.tool, arguments: args } }, ...(thought ? { thought } : {}) };
}

/** The endpoint refused the request because of its `response_format` (no structured output there). */
export function rejectsSchema(err: unknown): boolean {
  if (!(err instanceof APIError) || typeof err.status !== 'number') return false;
  if (err.status < 400 || err.status >= 500 || [401, 403, 408, 429].includes(err.status)) return false;
  return /response_format|json_schema|structured output|grammar|schema/i.test(err.message);
}
