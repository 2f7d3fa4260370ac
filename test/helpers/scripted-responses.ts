// A scripted OpenAI Responses API server (POST /v1/responses) over real HTTP, written from the API reference:
// requests are checked the way the API checks them (input items and their kinds; every function_call_output
// names the call_id of an earlier function_call; function tools with a name and, unless `strict: false`, a schema
// strict mode takes), replies are Response objects — reasoning, message and function_call output items, usage
// with input_tokens / output_tokens — or, for `stream: true`, the semantic events: response.created, output items
// added and done, response.output_text.delta word by word, response.function_call_arguments.delta,
// response.completed with the whole response. Errors are `{ error: { message, type, param, code } }`.
import type * as http from 'node:http';
import { sendJson } from './mock-model';
import {
  argumentsText,
  ScriptedServer,
  sse,
  words,
  type ScriptedApi,
  type ScriptedError,
  type ScriptedReply,
  type ScriptedRequest,
  type ScriptedSuccess,
} from './scripted-server';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  404: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);

/** Strict mode wants every property required and additionalProperties false, at every object level. */
function strictProblem(schema: any, path = 'parameters'): string | undefined {
  if (!schema || schema.type !== 'object') return undefined;
  if (schema.additionalProperties !== false) return `${path}: additionalProperties must be false in strict mode`;
  const props = Object.keys(schema.properties ?? {});
  const required = new Set<string>(schema.required ?? []);
  const missing = props.find((p) => !required.has(p));
  if (missing) return `${path}: '${missing}' must be required in strict mode`;
  for (const p of props) {
    const inner = strictProblem(schema.properties[p], `${path}.${p}`);
    if (inner) return inner;
  }
  return undefined;
}

function check(req: ScriptedRequest): { status: 400 | 401; message: string } | undefined {
  if (!/^Bearer \S+/.test(String(req.headers.authorization ?? ''))) return { status: 401, message: 'You must provide an API key' };
  const b = req.body;
  const bad = (message: string) => ({ status: 400 as const, message });
  if (typeof b.model !== 'string') return bad("Missing required parameter: 'model'");
  if (typeof b.input !== 'string' && !Array.isArray(b.input)) return bad("Invalid type for 'input'");
  const calls = new Set<string>();
  for (const [i, item] of (Array.isArray(b.input) ? b.input : []).entries()) {
    const type = item?.type ?? 'message';
    if (type === 'message') {
      if (!MESSAGE_ROLES.has(item.role)) return bad(`input[${i}].role: invalid value ${JSON.stringify(item.role)}`);
      if (typeof item.content !== 'string' && !Array.isArray(item.content)) return bad(`input[${i}].content: invalid type`);
    } else if (type === 'function_call') {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.arguments !== 'string') {
        return bad(`input[${i}]: a function_call needs call_id, name and arguments (a string)`);
      }
      calls.add(item.call_id);
    } else if (type === 'function_call_output') {
      if (typeof item.output !== 'string' && !Array.isArray(item.output)) return bad(`input[${i}].output: invalid type`);
      if (!calls.has(item.call_id)) return bad(`No tool call found for function call output with call_id ${item.call_id}.`);
    } else if (type !== 'reasoning') return bad(`input[${i}].type: unsupported ${JSON.stringify(type)}`);
  }
  for (const [i, t] of (b.tools ?? []).entries()) {
    if (t?.type !== 'function' || typeof t.name !== 'string') return bad(`tools[${i}]: a function tool needs type "function" and a name`);
    const strict = t.strict !== false && strictProblem(t.parameters);
    if (strict) return bad(`Invalid schema for function '${t.name}': ${strict}`);
  }
  return undefined;
}

class ResponsesApi implements ScriptedApi {
  route = '/v1/responses';
  basePath = '/v1';
  private seq = 0;

  check = check;

  errorBody(status: number, message: string) {
    return { error: { message, type: ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'), param: null, code: null } };
  }

  /** The Response object for a scripted reply: output items in order reasoning, message, function calls. */
  private response(req: ScriptedRequest, r: ScriptedSuccess) {
    const n = ++this.seq;
    const output: any[] = [];
    if (r.reasoning) output.push({ type: 'reasoning', id: `rs_${n}`, summary: [{ type: 'summary_text', text: r.reasoning }] });
    if (r.content) {
      output.push({
        type: 'message',
        id: `msg_${n}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: r.content, annotations: [] }],
      });
    }
    (r.toolCalls ?? []).forEach((tc, i) =>
      output.push({
        type: 'function_call',
        id: `fc_${n}_${i}`,
        call_id: tc.id ?? `call_${n}_${i}`,
        name: tc.name,
        arguments: argumentsText(tc.arguments),
        status: 'completed',
      }),
    );
    const u = r.usage ?? { input: 10, output: 5 };
    return {
      id: `resp_${n}`,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: req.body.instructions ?? null,
      model: req.body.model,
      output,
      parallel_tool_calls: true,
      temperature: req.body.temperature ?? 1,
      tool_choice: 'auto',
      tools: req.body.tools ?? [],
      usage: {
        input_tokens: u.input,
        input_tokens_details: { cached_tokens: u.cached ?? 0 },
        output_tokens: u.output,
        output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
        total_tokens: u.input + u.output,
      },
    };
  }

  async reply(res: http.ServerResponse, req: ScriptedRequest, r: ScriptedSuccess, closed: () => boolean): Promise<void> {
    const done = this.response(req, r);
    if (req.body.stream !== true) return sendJson(res, 200, done);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let seq = 0;
    const send = (type: string, data: object) => sse(res, type, { type, sequence_number: seq++, ...data });
    const inProgress = { ...done, status: 'in_progress', output: [], usage: null };
    send('response.created', { response: inProgress });
    send('response.in_progress', { response: inProgress });
    for (const [index, item] of done.output.entries()) {
      const base = { output_index: index, item_id: item.id };
      if (item.type === 'reasoning') {
        send('response.output_item.added', { output_index: index, item: { ...item, summary: [] } });
        send('response.reasoning_summary_part.added', { ...base, summary_index: 0, part: { type: 'summary_text', text: '' } });
        send('response.reasoning_summary_text.delta', { ...base, summary_index: 0, delta: item.summary[0].text });
        send('response.reasoning_summary_text.done', { ...base, summary_index: 0, text: item.summary[0].text });
        send('response.reasoning_summary_part.done', { ...base, summary_index: 0, part: item.summary[0] });
      } else if (item.type === 'message') {
        const text = item.content[0].text as string;
        send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
        send('response.content_part.added', { ...base, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
        for (const w of words(text)) {
          if (r.wordDelayMs) await new Promise((resolve) => setTimeout(resolve, r.wordDelayMs));
          if (closed()) return;
          send('response.output_text.delta', { ...base, content_index: 0, delta: w, logprobs: [] });
        }
        send('response.output_text.done', { ...base, content_index: 0, text, logprobs: [] });
        send('response.content_part.done', { ...base, content_index: 0, part: item.content[0] });
      } else {
        send('response.output_item.added', { output_index: index, item: { ...item, arguments: '', status: 'in_progress' } });
        // The arguments in two pieces, as a model writes them.
        const args = item.arguments as string;
        const cut = Math.ceil(args.length / 2);
        for (const delta of [args.slice(0, cut), args.slice(cut)]) send('response.function_call_arguments.delta', { ...base, delta });
        send('response.function_call_arguments.done', { ...base, name: item.name, arguments: args });
      }
      send('response.output_item.done', { output_index: index, item });
    }
    send('response.completed', { response: done });
    res.end();
  }

  streamError(res: http.ServerResponse, _req: ScriptedRequest, r: ScriptedError): void {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const err = (r.body as { error?: { code?: string; message?: string } } | undefined)?.error;
    const code = err?.code ?? (r.status === 429 ? 'rate_limit_exceeded' : r.status >= 500 ? 'server_error' : 'invalid_prompt');
    const failed = {
      id: 'resp_failed',
      object: 'response',
      status: 'failed',
      output: [],
      error: { code, message: err?.message ?? `scripted ${r.status}` },
    };
    sse(res, 'response.created', { type: 'response.created', sequence_number: 0, response: { ...failed, status: 'in_progress', error: null } });
    sse(res, 'response.failed', { type: 'response.failed', sequence_number: 1, response: failed });
    res.end();
  }
}

export class ScriptedResponses {
  static start(script: ScriptedReply[] = []): Promise<ScriptedServer> {
    return ScriptedServer.start(new ResponsesApi(), script);
  }
}
