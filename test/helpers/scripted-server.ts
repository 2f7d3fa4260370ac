// The machinery the scripted Responses and Messages servers share (scripted-responses.ts, scripted-messages.ts):
// a real HTTP server on 127.0.0.1 that answers one route from a script, in order, records every request, and
// answers a request that breaks the API's documented rules with that API's 400 (recorded in `errors`, so a test
// fails on it). What the request must look like and how a reply is written are the API's (ScriptedApi); both are
// written from the API references, not from the client code under test.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, sendJson, type ErrorReply, type SuccessReply } from './mock-model';

/** A scripted reply: content and tool calls (streamed word by word when asked to stream), or an error. */
export interface ScriptedSuccess extends Pick<SuccessReply, 'content' | 'toolCalls' | 'reasoning' | 'delayMs' | 'wordDelayMs'> {
  usage?: { input: number; output: number; cached?: number; reasoning?: number };
}

/** `inStream`: a stream request gets a 200 stream that fails with the API's error event instead. */
export type ScriptedError = ErrorReply & { inStream?: boolean };

export type ScriptedReply = ScriptedSuccess | ScriptedError | ((req: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>);

export interface ScriptedRequest {
  n: number;
  body: any;
  raw: string;
  headers: http.IncomingHttpHeaders;
  at: number;
  aborted?: boolean;
  status?: number;
}

export interface ScriptedApi {
  /** The route, e.g. /v1/messages, and the base URL's path the client is given (e.g. /v1, or none). */
  route: string;
  basePath: string;
  /** Why the request breaks the API's rules (then a 400), or its missing credentials (then a 401); undefined: valid. */
  check(req: ScriptedRequest): { status: 400 | 401; message: string } | undefined;
  /** The API's error body for a status. */
  errorBody(status: number, message: string): unknown;
  /** Writes a successful reply, as JSON or (when the request asked to stream) as server-sent events. */
  reply(res: http.ServerResponse, req: ScriptedRequest, r: ScriptedSuccess, closed: () => boolean): Promise<void>;
  /** Writes a 200 stream that fails at once with the API's error event. */
  streamError(res: http.ServerResponse, req: ScriptedRequest, r: ScriptedError): void;
}

function isError(r: ScriptedSuccess | ScriptedError): r is ScriptedError {
  return typeof (r as ScriptedError).status === 'number';
}

export class ScriptedServer {
  readonly requests: ScriptedRequest[] = [];
  readonly errors: string[] = [];
  readonly baseURL: string;
  private cursor = 0;
  private closed = false;

  private constructor(
    private readonly server: http.Server,
    private readonly api: ScriptedApi,
    private readonly script: ScriptedReply[],
  ) {
    this.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}${api.basePath}`;
  }

  static async start(api: ScriptedApi, script: ScriptedReply[]): Promise<ScriptedServer> {
    let self: ScriptedServer | undefined;
    const server = http.createServer((req, res) => void self!.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    self = new ScriptedServer(server, api, [...script]);
    return self;
  }

  push(...replies: ScriptedReply[]): void {
    this.script.push(...replies);
  }

  /** Throws if a request broke the API's rules or script replies remain unused. */
  assertDone(): void {
    const problems = [...this.errors];
    const left = this.script.length - this.cursor;
    if (left > 0) problems.push(`${left} scripted replies unused (${this.requests.length} request(s) received)`);
    if (problems.length) throw new Error(`scripted server: ${problems.join('; ')}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const raw = await readBody(req);
      const url = (req.url ?? '/').split('?')[0];
      if (req.method !== 'POST' || url !== this.api.route) {
        this.errors.push(`unexpected ${req.method} ${req.url}`);
        return sendJson(res, 404, this.api.errorBody(404, `no route ${req.method} ${req.url}`));
      }
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const record: ScriptedRequest = { n: this.requests.length + 1, body, raw, headers: req.headers, at: Date.now() };
      this.requests.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.aborted = true;
      });
      const invalid = body === undefined ? { status: 400 as const, message: 'the body is not JSON' } : this.api.check(record);
      if (invalid) {
        this.errors.push(`request #${record.n}: ${invalid.message}`);
        record.status = invalid.status;
        return sendJson(res, invalid.status, this.api.errorBody(invalid.status, invalid.message));
      }
      let reply = this.cursor < this.script.length ? this.script[this.cursor++] : undefined;
      if (!reply) {
        this.errors.push(`unexpected request #${record.n} beyond the script of ${this.script.length}`);
        record.status = 400;
        return sendJson(res, 400, this.api.errorBody(400, 'beyond the script'));
      }
      while (typeof reply === 'function') reply = await reply(record);
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      if (res.destroyed || this.closed) return;
      if (isError(reply)) {
        record.status = reply.inStream && body.stream === true ? 200 : reply.status;
        if (reply.inStream && body.stream === true) return this.api.streamError(res, record, reply);
        return sendJson(res, reply.status, reply.body ?? this.api.errorBody(reply.status, `scripted error ${reply.status}`), reply.headers);
      }
      record.status = 200;
      await this.api.reply(res, record, reply, () => this.closed || res.destroyed);
    } catch (err) {
      this.errors.push(`scripted server failed: ${(err as Error).stack ?? String(err)}`);
      if (!res.headersSent && !res.destroyed) sendJson(res, 500, this.api.errorBody(500, (err as Error).message));
    }
  }
}

/** A reply's text as the pieces a stream sends: one word (with its trailing space) each. */
export function words(text: string | null | undefined): string[] {
  return text ? (text.match(/\S+\s*|\s+/g) ?? []) : [];
}

/** A tool call's arguments as JSON text. */
export function argumentsText(args: string | object): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** One server-sent event, named as both APIs name theirs. */
export function sse(res: http.ServerResponse, event: string, data: unknown): void {
  if (!res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}
