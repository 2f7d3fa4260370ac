// A scripted Anthropic Messages server (POST /v1/messages) over real HTTP, written from the API reference and its
// streaming and prompt-caching guides. Requests are checked as the API checks them: an anthropic-version header
// and a key (x-api-key, or Authorization: Bearer as the SDKs since API version 2026-10-21 send it); model,
// max_tokens and non-empty messages; no empty text blocks; every tool_use answered by a tool_result with its id
// in the next user message, tool results first in that message, and no tool_result without its tool_use; at most
// four cache_control breakpoints; from API version 2026-10-21 no temperature, top_p or top_k. Replies are Message
// objects (thinking, text and tool_use content blocks, stop_reason, usage with the cache counts) or, for
// `stream: true`, the named events message_start, content_block_start / _delta / _stop (text_delta,
// thinking_delta, input_json_delta), message_delta and message_stop. Errors are
// `{ type: "error", error: { type, message } }`.
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
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const errorType = (status: number) => ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');

type Block = { type: string; [k: string]: any };

const blocksOf = (content: unknown): Block[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Block[]));

function checkMessages(messages: any[]): string | undefined {
  for (const [i, m] of messages.entries()) {
    if (m?.role !== 'user' && m?.role !== 'assistant') return `messages.${i}.role: must be "user" or "assistant"`;
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return `messages.${i}.content: must be a string or a list of blocks`;
    const blocks = blocksOf(m.content);
    for (const [j, b] of blocks.entries()) {
      if (b.type === 'text' && !String(b.text ?? '').trim())
        return `messages.${i}.content.${j}: text content blocks must contain non-whitespace text`;
    }
    const results = blocks.filter((b) => b.type === 'tool_result');
    const prev = i > 0 ? blocksOf(messages[i - 1].content) : [];
    const uses = new Set(m.role === 'user' ? prev.filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
    for (const r of results) {
      if (!uses.has(r.tool_use_id)) {
        return `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${r.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
    const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
    if (firstOther >= 0 && blocks.map((b) => b.type).lastIndexOf('tool_result') > firstOther) {
      return `messages.${i}: tool_result blocks must come first in the message content`;
    }
    if (m.role === 'assistant') {
      const ids = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
      const next = messages[i + 1];
      const answered = new Set(
        next?.role === 'user'
          ? blocksOf(next.content)
              .filter((b) => b.type === 'tool_result')
              .map((b) => b.tool_use_id)
          : [],
      );
      const missing = ids.find((id) => !answered.has(id));
      if (missing && i + 1 < messages.length) {
        return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
  }
  return undefined;
}

function check(req: ScriptedRequest): { status: 400 | 401; message: string } | undefined {
  const h = req.headers;
  const version = String(h['anthropic-version'] ?? '');
  if (!version) return { status: 400, message: 'anthropic-version: header is required' };
  if (!h['x-api-key'] && !/^Bearer \S+/.test(String(h.authorization ?? ''))) return { status: 401, message: 'x-api-key header is required' };
  const b = req.body;
  const bad = (message: string) => ({ status: 400 as const, message });
  if (typeof b.model !== 'string') return bad('model: Field required');
  if (!Number.isInteger(b.max_tokens) || b.max_tokens < 1) return bad('max_tokens: Field required');
  if (!Array.isArray(b.messages) || !b.messages.length) return bad('messages: at least one message is required');
  if (version >= '2026-10-21') {
    const sampling = ['temperature', 'top_p', 'top_k'].find((k) => k in b);
    if (sampling) return bad(`${sampling}: Extra inputs are not permitted`);
  }
  const systemBreakpoints = Array.isArray(b.system) ? b.system.filter((s: Block) => s.cache_control).length : 0;
  const toolBreakpoints = (b.tools ?? []).filter((t: Block) => t.cache_control).length;
  for (const [i, t] of (b.tools ?? []).entries()) {
    if (typeof t.name !== 'string' || t.input_schema?.type !== 'object')
      return bad(`tools.${i}: a tool needs a name and an input_schema of type object`);
  }
  const problem = checkMessages(b.messages);
  if (problem) return bad(problem);
  const counted = b.messages.flatMap((m: any) => blocksOf(m.content)).filter((x: Block) => x.cache_control).length;
  if (counted + systemBreakpoints + toolBreakpoints > 4) return bad('A maximum of 4 blocks with cache_control may be provided.');
  return undefined;
}

class MessagesApi implements ScriptedApi {
  route = '/v1/messages';
  basePath = '';
  private seq = 0;

  check = check;

  errorBody(status: number, message: string) {
    return { type: 'error', error: { type: errorType(status), message }, request_id: `req_${status}` };
  }

  private message(req: ScriptedRequest, r: ScriptedSuccess) {
    const n = ++this.seq;
    const content: Block[] = [];
    if (r.reasoning) content.push({ type: 'thinking', thinking: r.reasoning, signature: `sig_${n}` });
    if (r.content) content.push({ type: 'text', text: r.content });
    (r.toolCalls ?? []).forEach((tc, i) =>
      content.push({ type: 'tool_use', id: tc.id ?? `toolu_${n}_${i}`, name: tc.name, input: JSON.parse(argumentsText(tc.arguments)) }),
    );
    const u = r.usage ?? { input: 10, output: 5 };
    return {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: req.body.model,
      content,
      stop_reason: r.toolCalls?.length ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: u.input, output_tokens: u.output, cache_creation_input_tokens: 0, cache_read_input_tokens: u.cached ?? 0 },
    };
  }

  async reply(res: http.ServerResponse, req: ScriptedRequest, r: ScriptedSuccess, closed: () => boolean): Promise<void> {
    const done = this.message(req, r);
    if (req.body.stream !== true) return sendJson(res, 200, done);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: object) => sse(res, type, { type, ...data });
    send('message_start', { message: { ...done, content: [], stop_reason: null, usage: { ...done.usage, output_tokens: 1 } } });
    send('ping', {});
    for (const [index, b] of done.content.entries()) {
      if (b.type === 'thinking') {
        send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: b.thinking } });
        send('content_block_delta', { index, delta: { type: 'signature_delta', signature: b.signature } });
      } else if (b.type === 'text') {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const w of words(b.text)) {
          if (r.wordDelayMs) await new Promise((resolve) => setTimeout(resolve, r.wordDelayMs));
          if (closed()) return;
          send('content_block_delta', { index, delta: { type: 'text_delta', text: w } });
        }
      } else {
        send('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
        const json = JSON.stringify(b.input);
        const cut = Math.ceil(json.length / 2);
        for (const partial_json of [json.slice(0, cut), json.slice(cut)])
          send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
      }
      send('content_block_stop', { index });
    }
    send('message_delta', { delta: { stop_reason: done.stop_reason, stop_sequence: null }, usage: { output_tokens: done.usage.output_tokens } });
    send('message_stop', {});
    res.end();
  }

  streamError(res: http.ServerResponse, req: ScriptedRequest, r: ScriptedError): void {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const done = this.message(req, {});
    sse(res, 'message_start', { type: 'message_start', message: { ...done, content: [], stop_reason: null } });
    sse(res, 'error', this.errorBody(r.status, `scripted ${r.status} in the stream`));
    res.end();
  }
}

export class ScriptedMessages {
  static start(script: ScriptedReply[] = []): Promise<ScriptedServer> {
    return ScriptedServer.start(new MessagesApi(), script);
  }
}
