// A constrained step's long text argument, written as plain text. Inside the step's JSON a file's content is a JSON
// string, and a 1.5B model writing JSON, code or quotes into it ended the string at its first unescaped quote (the
// grammar allows that, and `"content": "[{"` was what it wrote). So a tool's body parameter is not in the step's
// schema: when the model picks the tool, a second request without a schema asks for the body alone, and the reply,
// less one code fence around it, becomes the argument. Measured at the decision point of a CSV → JSON task (the
// file just read, 10 samples each): with the content in the schema 0 of 10 wrote a valid file; the body as text was
// valid JSON in 5 of 6 samples.
import type { ToolCall } from '../shared/wire';
import type { Definition } from './text-mode';

/** Built-in tools whose named parameter is written as a body: the whole content of a file. */
const BODY_PARAMS: Record<string, string> = { write_file: 'content' };

/** The body parameter of a tool as offered (a catalog tool of the same name has its own schema), if any. */
export function bodyParam(d: Definition): string | undefined {
  const param = BODY_PARAMS[d.function.name];
  if (!param) return undefined;
  const props = (d.function.parameters as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  return props?.[param]?.type === 'string' ? param : undefined;
}

/** The parameters' schema less the body: what the step's grammar asks for. */
export function withoutBody(parameters: Record<string, unknown>, param: string): Record<string, unknown> {
  const props = { ...(parameters.properties as Record<string, unknown>) };
  delete props[param];
  const required = Array.isArray(parameters.required) ? parameters.required.filter((r) => r !== param) : undefined;
  return { ...parameters, properties: props, ...(required ? { required } : {}) };
}

/** What the prompt's tool line says instead of the parameter. */
export function bodyHint(param: string): string {
  return ` You give the ${param} in your next message, as plain text.`;
}

/** The request for the body, after the step that chose the tool. */
export function bodyRequest(call: ToolCall, param: string): string {
  let path = '';
  try {
    const p = (JSON.parse(call.function.arguments) as { path?: unknown }).path;
    if (typeof p === 'string') path = p;
  } catch {
    // an unreadable step has no path to name
  }
  const what = path ? `the whole ${param} of ${path}` : `the whole ${param}`;
  return `Now write ${what}: reply with that text only, nothing before or after it.`;
}

/** The call waits for its body: a body tool whose arguments do not have it yet. */
export function pendingBody(call: ToolCall, defs: Definition[]): string | undefined {
  const def = defs.find((d) => d.function.name === call.function.name);
  const param = def && bodyParam(def);
  if (!param) return undefined;
  try {
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    return args && typeof args === 'object' && !(param in args) ? param : undefined;
  } catch {
    return undefined;
  }
}

const FENCED = /^\s*```[^\n`]*\n([\s\S]*?)\n?```\s*$/;

/** The body as the model wrote it, less one code fence around the whole of it (a small model fences code). */
export function bodyText(reply: string): string {
  const m = FENCED.exec(reply);
  return m ? `${m[1]}\n` : reply;
}

/** The call with its body. */
export function withBodyArgument(call: ToolCall, param: string, body: string): ToolCall {
  const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
  return { ...call, function: { ...call.function, arguments: JSON.stringify({ ...args, [param]: body }) } };
}

/** A recorded call as the step the model wrote (its body left out) and the body it gave next. */
export function splitBody(call: ToolCall, defs: Definition[]): { args: string; param: string; body: string } | undefined {
  const def = defs.find((d) => d.function.name === call.function.name);
  const param = def && bodyParam(def);
  if (!param) return undefined;
  try {
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    const body = args[param];
    if (typeof body !== 'string') return undefined;
    const { [param]: _body, ...rest } = args;
    return { args: JSON.stringify(rest), param, body };
  } catch {
    return undefined;
  }
}
