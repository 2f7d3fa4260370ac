// The client-side tool fields of `POST /v1/chat/completions` — `tools`, `tool_choice`, `response_format` — read
// into the offer a turn gets (src/shared/client-tools.ts), every problem a 400 naming its field. Also the fields
// this server does not carry out, refused rather than ignored: the legacy `functions`/`function_call`, and
// `parallel_tool_calls: false` (a model step may call several tools).
import {
  isClientToolName,
  MAX_CLIENT_TOOLS,
  type AnswerFormat,
  type ClientOffer,
  type ClientTool,
  type ClientToolChoice,
} from '../shared/client-tools';
import { schemaProblem } from '../llm/answer-format';
import { toolSpec } from '../tools/registry';
import { badRequest, quoted } from './errors';

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request's offer; undefined when it offers nothing (no tools, or tool_choice "none", and a text answer). */
export function clientOfferOf(b: Body): ClientOffer | undefined {
  refuseLegacy(b);
  const format = answerFormatOf(b.response_format);
  const tools = toolsOf(b.tools);
  const choice = toolChoiceOf(b.tool_choice, tools);
  // "none": the model calls none of the client's tools (the agent's own still run), so none is offered.
  const offered = choice === 'none' ? [] : tools;
  const offer: ClientOffer = {
    ...(offered.length ? { tools: offered } : {}),
    ...(offered.length && choice !== 'none' && choice !== 'auto' ? { toolChoice: choice } : {}),
    ...(format ? { responseFormat: format } : {}),
  };
  return offer.tools || offer.responseFormat ? offer : undefined;
}

function refuseLegacy(b: Body): void {
  for (const key of ['functions', 'function_call'] as const) {
    const v = b[key];
    if (v === undefined || v === null || v === 'none' || (Array.isArray(v) && v.length === 0)) continue;
    throw badRequest(
      key,
      `${key}: the deprecated functions API is not supported by hermes serve; send tools (and tool_choice) instead`,
      'unsupported_parameter',
    );
  }
  const parallel = b.parallel_tool_calls;
  if (parallel !== undefined && parallel !== null && typeof parallel !== 'boolean')
    throw badRequest('parallel_tool_calls', 'parallel_tool_calls must be a boolean', 'invalid_type');
  if (parallel === false)
    throw badRequest(
      'parallel_tool_calls',
      'parallel_tool_calls: false is not supported by hermes serve: a model step may call several tools at once; leave it out',
      'unsupported_value',
    );
}

function toolsOf(raw: unknown): ClientTool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw badRequest('tools', 'tools must be an array of {"type": "function", "function": {...}}', 'invalid_type');
  if (raw.length > MAX_CLIENT_TOOLS) throw badRequest('tools', `tools: at most ${MAX_CLIENT_TOOLS} tools`, 'array_above_max_length');
  const seen = new Set<string>();
  return raw.map((t: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t)) throw badRequest(at, `${at} must be an object {"type": "function", "function": {...}}`, 'invalid_type');
    if (t.type !== 'function')
      throw badRequest(`${at}.type`, `${at}.type: only "function" tools are supported, got ${quoted(t.type)}`, 'unsupported_value');
    const f = t.function;
    if (!isObject(f)) throw badRequest(`${at}.function`, `${at}.function must be an object {name, description?, parameters?}`, 'invalid_type');
    const name = f.name;
    if (typeof name !== 'string' || !isClientToolName(name))
      throw badRequest(`${at}.function.name`, `${at}.function.name ${quoted(name)} must be letters, digits, _ and - (1 to 64)`, 'invalid_value');
    if (toolSpec(name))
      throw badRequest(
        `${at}.function.name`,
        `${at}.function.name "${name}" is the name of one of the agent's own tools: give the client's tool another name`,
        'tool_name_taken',
      );
    if (seen.has(name)) throw badRequest(`${at}.function.name`, `${at}.function.name "${name}" is given twice`, 'invalid_value');
    seen.add(name);
    if (f.description !== undefined && f.description !== null && typeof f.description !== 'string')
      throw badRequest(`${at}.function.description`, `${at}.function.description must be a string`, 'invalid_type');
    if (f.parameters !== undefined && f.parameters !== null && !isObject(f.parameters))
      throw badRequest(`${at}.function.parameters`, `${at}.function.parameters must be a JSON Schema object`, 'invalid_type');
    return {
      name,
      ...(typeof f.description === 'string' ? { description: f.description } : {}),
      ...(isObject(f.parameters) ? { parameters: f.parameters } : {}),
    };
  });
}

function toolChoiceOf(raw: unknown, tools: ClientTool[]): ClientToolChoice | 'auto' | 'none' {
  if (raw === undefined || raw === null || raw === 'auto') return 'auto';
  if (raw === 'none') return 'none';
  if (raw === 'required') {
    if (!tools.length) throw badRequest('tool_choice', 'tool_choice "required" needs tools', 'invalid_value');
    return 'required';
  }
  const name = isObject(raw) && raw.type === 'function' && isObject(raw.function) ? raw.function.name : undefined;
  if (typeof name !== 'string')
    throw badRequest(
      'tool_choice',
      'tool_choice must be "none", "auto", "required" or {"type": "function", "function": {"name": "…"}}',
      'invalid_value',
    );
  if (!tools.some((t) => t.name === name))
    throw badRequest('tool_choice', `tool_choice names ${quoted(name)}, which is not one of the request's tools`, 'invalid_value');
  return { name };
}

function answerFormatOf(raw: unknown): AnswerFormat | undefined {
  if (raw === undefined || raw === null) return undefined;
  const param = 'response_format';
  if (!isObject(raw)) throw badRequest(param, 'response_format must be an object {"type": "text" | "json_object" | "json_schema"}', 'invalid_type');
  if (raw.type === 'text') return undefined;
  if (raw.type === 'json_object') return { type: 'json_object' };
  if (raw.type !== 'json_schema')
    throw badRequest(
      `${param}.type`,
      `response_format.type ${quoted(raw.type)} is not supported: use "text", "json_object" or "json_schema"`,
      'unsupported_value',
    );
  const js = raw.json_schema;
  if (!isObject(js))
    throw badRequest(`${param}.json_schema`, 'response_format.json_schema must be an object {name, schema, strict?}', 'invalid_type');
  if (typeof js.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(js.name))
    throw badRequest(`${param}.json_schema.name`, 'response_format.json_schema.name must be letters, digits, _ and - (1 to 64)', 'invalid_value');
  if (!isObject(js.schema))
    throw badRequest(`${param}.json_schema.schema`, 'response_format.json_schema.schema must be a JSON Schema object', 'invalid_type');
  const problem = schemaProblem(js.schema);
  if (problem)
    throw badRequest(`${param}.json_schema.schema`, `response_format.json_schema.schema cannot be used: ${problem.slice(0, 300)}`, 'invalid_value');
  if (js.strict !== undefined && js.strict !== null && typeof js.strict !== 'boolean')
    throw badRequest(`${param}.json_schema.strict`, 'response_format.json_schema.strict must be a boolean', 'invalid_type');
  return { type: 'json_schema', name: js.name, schema: js.schema, ...(typeof js.strict === 'boolean' ? { strict: js.strict } : {}) };
}
