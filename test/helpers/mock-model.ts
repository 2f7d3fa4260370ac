// An OpenAI-compatible chat-completions server over real HTTP for tests. Replies come from a script,
// in order; every request is recorded. Anything unexpected is recorded in `errors` and answered with a
// non-retryable HTTP 400 so the run under test ends instead of looping.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ToolCallReply {
  name: string;
  /** JSON text, or an object that is serialised. */
  arguments: string | object;
  id?: string;
}

export interface SuccessReply {
  content?: string | null;
  toolCalls?: ToolCallReply[];
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Sent as `reasoning_content` (a reasoning model's thinking, as DeepSeek, vLLM and llama.cpp send it). */
  reasoning?: string;
  /** Sent as usage.completion_tokens_details.reasoning_tokens. */
  reasoningTokens?: number;
  delayMs?: number;
  finishReason?: string;
  /** A stream request (`stream: true`) gets its content one word per chunk, this far apart (default 0). */
  wordDelayMs?: number;
  /** Streamed: the connection is dropped after this many words (a failure mid-stream). */
  failAfterWords?: number;
  /** Answer a stream request with plain JSON, as a server that ignores `stream` does. */
  ignoreStream?: boolean;
}

export interface ErrorReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

export type Reply = SuccessReply | ErrorReply | ((req: RecordedRequest) => Reply | Promise<Reply>);

export interface RecordedRequest {
  /** 1-based number of the chat-completions request. */
  n: number;
  /** Parsed JSON body. */
  body: any;
  /** The body as it arrived (byte-level checks, e.g. prompt prefixes). */
  raw: string;
  headers: http.IncomingHttpHeaders;
  /** Date.now() when the request arrived. */
  at: number;
  messages: any[];
  /** Function names offered in `tools`, when the request has tools. */
  tools?: string[];
  /** True when the client closed the connection before the reply was sent. */
  aborted?: boolean;
  /** HTTP status answered (undefined while pending or when aborted). */
  status?: number;
}

const DEFAULT_USAGE = { prompt_tokens: 10, completion_tokens: 5 };

function isErrorReply(r: SuccessReply | ErrorReply): r is ErrorReply {
  return typeof (r as ErrorReply).status === 'number';
}

export class MockModel {
  readonly requests: RecordedRequest[] = [];
  readonly errors: string[] = [];
  /** Self-description routes a worker asked for (404 here). */
  readonly probes: string[] = [];
  readonly baseURL: string;

  private readonly script: Reply[] = [];
  private cursor = 0;
  private toolCallSeq = 0;
  private completionSeq = 0;
  private readonly waiters: Array<{ n: number; resolve: () => void }> = [];
  private readonly pendingDelays = new Set<() => void>();
  private closed = false;

  private constructor(
    private readonly server: http.Server,
    port: number,
    script: Reply[],
  ) {
    this.baseURL = `http://127.0.0.1:${port}/v1`;
    this.script.push(...script);
  }

  static async start(script: Reply[] = []): Promise<MockModel> {
    let model: MockModel | undefined;
    const server = http.createServer((req, res) => {
      void model!.handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    model = new MockModel(server, (server.address() as AddressInfo).port, script);
    return model;
  }

  /** Appends replies to the script. */
  push(...replies: Reply[]): void {
    this.script.push(...replies);
  }

  /** Script replies not used yet. */
  get remaining(): number {
    return this.script.length - this.cursor;
  }

  /** Resolves once at least `n` chat-completions requests have arrived (default: one more than now). */
  waitForRequest(n = this.requests.length + 1, timeoutMs = 10_000): Promise<RecordedRequest> {
    if (this.requests.length >= n) return Promise.resolve(this.requests[n - 1]);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error(`mock: request #${n} did not arrive within ${timeoutMs} ms (got ${this.requests.length})`));
      }, timeoutMs);
      const waiter = {
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.requests[n - 1]);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Throws if anything unexpected happened or script replies remain unused. */
  assertDone(): void {
    const problems = [...this.errors];
    if (this.remaining > 0) {
      problems.push(
        `${this.remaining} scripted repl${this.remaining === 1 ? 'y' : 'ies'} unused ` +
          `(script of ${this.script.length}, ${this.requests.length} request(s) received)`,
      );
    }
    if (problems.length) throw new Error(`MockModel: ${problems.join('; ')}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const finish of [...this.pendingDelays]) finish();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  // -------------------------------------------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const raw = await readBody(req);
      const url = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
      if (req.method === 'GET' && url === '/v1/models') {
        return sendJson(res, 200, {
          object: 'list',
          data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }],
        });
      }
      if (req.method === 'POST' && url === '/v1/chat/completions') {
        return await this.chatCompletion(req, res, raw);
      }
      // What a worker asks a local server about itself (src/llm/endpoint-probe.ts): a plain OpenAI-compatible
      // server has none of these routes.
      if (req.method === 'GET' && (url === '/props' || url === '/api/version')) {
        this.probes.push(url);
        return sendJson(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
      }
      this.errors.push(`unexpected ${req.method} ${req.url}`);
      return sendJson(res, 404, {
        error: { message: `mock: no route ${req.method} ${req.url}`, type: 'invalid_request_error' },
      });
    } catch (err) {
      this.errors.push(`mock failed: ${(err as Error).stack ?? String(err)}`);
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, { error: { message: `mock: ${(err as Error).message}`, type: 'server_error' } });
      }
    }
  }

  private async chatCompletion(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    const record: RecordedRequest = {
      n: this.requests.length + 1,
      body,
      raw,
      headers: req.headers,
      at: Date.now(),
      messages: Array.isArray(body?.messages) ? body.messages : [],
      tools: Array.isArray(body?.tools)
        ? body.tools.map((t: any) => t?.function?.name ?? t?.name).filter((n: unknown) => typeof n === 'string')
        : undefined,
    };
    this.requests.push(record);
    let clientGone = false;
    res.on('close', () => {
      if (!res.writableFinished) {
        clientGone = true;
        record.aborted = true;
      }
    });
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.requests.length >= this.waiters[i].n) this.waiters.splice(i, 1)[0].resolve();
    }

    const badRequest = (why: string) => {
      this.errors.push(why);
      record.status = 400;
      sendJson(res, 400, { error: { message: `mock: ${why}`, type: 'invalid_request_error' } });
    };

    if (typeof body !== 'object' || body === null) return badRequest(`request #${record.n}: body is not JSON`);

    let reply: Reply | undefined = this.cursor < this.script.length ? this.script[this.cursor++] : undefined;
    if (reply === undefined) {
      return badRequest(`unexpected request #${record.n} beyond the script of ${this.script.length}`);
    }
    try {
      for (let depth = 0; typeof reply === 'function'; depth++) {
        if (depth > 10) throw new Error('reply functions nested too deeply');
        reply = await reply(record);
      }
    } catch (err) {
      return badRequest(`reply function for request #${record.n} threw: ${(err as Error).message}`);
    }
    const r = reply as SuccessReply | ErrorReply;

    if (r.delayMs && r.delayMs > 0) {
      await new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          res.off('close', finish);
          this.pendingDelays.delete(finish);
          resolve();
        };
        const timer = setTimeout(finish, r.delayMs);
        res.on('close', finish); // the client aborted: stop waiting
        this.pendingDelays.add(finish); // close() ends all delays
      });
    }
    if (clientGone || res.destroyed || this.closed) {
      record.aborted = clientGone || record.aborted;
      if (!res.destroyed) res.destroy();
      return;
    }

    if (isErrorReply(r)) {
      record.status = r.status;
      const errBody = r.body ?? { error: { message: `mock error ${r.status}`, type: 'server_error' } };
      return sendJson(res, r.status, errBody, r.headers);
    }

    const toolCalls = (r.toolCalls ?? []).map((tc) => ({
      id: tc.id ?? `call_${++this.toolCallSeq}`,
      type: 'function' as const,
      function: {
        name: tc.name,
        arguments: typeof tc.arguments === 'string' ? tc.arguments : JSON.stringify(tc.arguments),
      },
    }));
    const usage = r.usage ?? DEFAULT_USAGE;
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: r.content !== undefined ? r.content : toolCalls.length ? null : '',
    };
    if (toolCalls.length) message.tool_calls = toolCalls;
    if (r.reasoning !== undefined) message.reasoning_content = r.reasoning;
    record.status = 200;
    if (body.stream === true && !r.ignoreStream) return this.stream(res, body, r, message, toolCalls, usage);
    sendJson(res, 200, {
      id: `chatcmpl-mock-${++this.completionSeq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: typeof body.model === 'string' ? body.model : 'mock-model',
      choices: [
        {
          index: 0,
          message,
          logprobs: null,
          finish_reason: r.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
        },
      ],
      usage: {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        total_tokens: usage.prompt_tokens + usage.completion_tokens,
        ...(r.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: r.reasoningTokens } } : {}),
      },
    });
  }
  /** The reply as server-sent chat.completion.chunk events: content word by word, then the calls, then usage. */
  private async stream(
    res: http.ServerResponse,
    body: any,
    r: SuccessReply,
    message: Record<string, unknown>,
    toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>,
    usage: { prompt_tokens: number; completion_tokens: number },
  ): Promise<void> {
    const id = `chatcmpl-mock-${++this.completionSeq}`;
    const base = {
      id,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: typeof body.model === 'string' ? body.model : 'mock-model',
    };
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) => {
      if (!res.destroyed) res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    if (typeof message.reasoning_content === 'string')
      send([{ index: 0, delta: { reasoning_content: message.reasoning_content }, finish_reason: null }]);
    const words = typeof message.content === 'string' ? (message.content.match(/\S+\s*|\s+/g) ?? []) : [];
    for (let i = 0; i < words.length; i++) {
      if (r.failAfterWords !== undefined && i >= r.failAfterWords) {
        res.destroy();
        return;
      }
      if (r.wordDelayMs) await new Promise((resolve) => setTimeout(resolve, r.wordDelayMs));
      if (res.destroyed || this.closed) return;
      send([{ index: 0, delta: { content: words[i] }, finish_reason: null }]);
    }
    toolCalls.forEach((tc, index) => send([{ index: 0, delta: { tool_calls: [{ index, ...tc }] }, finish_reason: null }]));
    send([{ index: 0, delta: {}, finish_reason: r.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop') }]);
    if (body.stream_options?.include_usage) {
      send([], {
        usage: {
          prompt_tokens: usage.prompt_tokens,
          completion_tokens: usage.completion_tokens,
          total_tokens: usage.prompt_tokens + usage.completion_tokens,
          ...(r.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: r.reasoningTokens } } : {}),
        },
      });
    }
    res.end('data: [DONE]\n\n');
  }
}

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const lower = Object.keys(headers).map((h) => h.toLowerCase());
  res.writeHead(status, {
    ...(lower.includes('content-type') ? {} : { 'content-type': 'application/json' }),
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
