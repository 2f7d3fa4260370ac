// `hermes serve`: an OpenAI-compatible HTTP API over node:http (docs/guides/serve.md). Routing, the bearer token, the
// browser boundary (browser-guard.ts), the body limit and the concurrency cap live here; each endpoint's work in its own file.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Hermes } from '../client';
import { authorized, listen, trimTrailingSlashes, type RunningHttpServer } from '../shared/http-server';
import { guardBrowser, requireJson } from './browser-guard';
import { chatCompletions, type CompletionsContext } from './chat-completions';
import { ApiError, asApiError, badRequest, notFound, quoted, unauthorized } from './errors';
import { sendJson } from './json-response';
import { openApiDocument } from './openapi';
import { principalOf, principalScope, principalSkillsStore, type Principal } from './principals';
import { sessionIdOf, type ProfileNames } from './request';
import { sessionEvents, sessionRoute } from './session-routes';
import { TurnsInFlight } from './session-view';
import type { SessionDefaults } from './sessions';

export const DEFAULT_SERVE_PORT = 8642;
/** Temporal refuses payloads over 2 MiB; a body over this cannot become a conversation's input anyway. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface ServeOptions {
  hermes: Hermes;
  /** 0 picks a free port. Default 8642. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Each client its own token (principals.ts): every request needs one of them, and sees only its principal's sessions. */
  principals?: Principal[];
  /** Origins a web page may call the API from (CORS); any other `Origin` is a 403. Default none. */
  allowOrigins?: string[];
  /** Host names accepted in `Host` besides loopback ones and the bound host (checked only without a token). */
  allowHosts?: string[];
  /** The model profiles (`GET /v1/models`, the `model` field); read per request, so a config edit shows. */
  profiles: () => ProfileNames & { models?: Record<string, string> };
  defaults?: Partial<SessionDefaults>;
  interruptOnDisconnect?: boolean;
  /** Requests handled at once; more get 429. Default 64. `/health`, `/v1/models` and `/openapi.json` are not counted. */
  maxConcurrent?: number;
  /** `/v1/sessions/ID/events` streams open at once, counted apart from the requests; more get 429. Default 64. */
  maxStreams?: number;
  log?: (line: string) => void;
}

export type RunningServe = RunningHttpServer;

/**
 * What is wrong with a bearer token, if anything: a blank one (`--token " "`) would leave the server reachable
 * with a token nobody can send, and clients trim a header value, so spaces around or inside it never match.
 */
export function tokenProblem(token: string): string | undefined {
  if (!token.trim()) return 'the bearer token is blank: give a token of letters, digits or symbols (e.g. openssl rand -hex 32)';
  if (/[\s\p{Cc}]/u.test(token)) return 'the bearer token holds a space or control character, which a client cannot send in its Authorization header';
  return undefined;
}

export async function startServe(opts: ServeOptions): Promise<RunningServe> {
  if (opts.token !== undefined) {
    const problem = tokenProblem(opts.token);
    if (problem) throw new Error(problem);
  }
  const log = opts.log ?? (() => undefined);
  const expected = opts.token !== undefined ? Buffer.from(`Bearer ${opts.token}`) : undefined;
  const maxConcurrent = opts.maxConcurrent ?? 64;
  const maxStreams = opts.maxStreams ?? 64;
  const ctx: CompletionsContext = {
    hermes: opts.hermes,
    profiles: opts.profiles,
    defaults: { busyPolicy: opts.defaults?.busyPolicy ?? 'queue', start: opts.defaults?.start ?? {} },
    interruptOnDisconnect: opts.interruptOnDisconnect === true,
    inFlight: new TurnsInFlight(),
    log,
  };
  const browser = {
    allowedOrigins: (opts.allowOrigins ?? []).map((o) => o.toLowerCase()),
    allowedHosts: (opts.allowHosts ?? []).map((h) => h.toLowerCase()),
    boundHost: opts.host ?? '127.0.0.1',
    tokenRequired: expected !== undefined || Boolean(opts.principals?.length),
  };
  const principals = opts.principals?.length ? opts.principals : undefined;
  // Two counts: an idle events stream may stay open for hours, and must not use up the requests' share (nor may
  // requests use up the streams'). The cheap answers that touch no conversation are counted by neither, so a
  // health check still answers when both are full.
  const open = { request: 0, stream: 0 };

  const server = createServer((req, res) => {
    const kind = limitOf(req.url);
    if (kind) {
      open[kind]++;
      res.once('close', () => open[kind]--);
    }
    route(req, res, kind).catch((err: unknown) => {
      const e = asApiError(err);
      if (e.status >= 500) log(`${req.method} ${req.url}: ${e.status} ${e.message}`);
      const headers: Record<string, string> =
        e.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : e.status === 429 ? { 'Retry-After': String(RETRY_AFTER_SEC) } : {};
      if (!res.headersSent) sendJson(res, e.status, e.body, headers);
      else res.end();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse, kind: 'request' | 'stream' | undefined): Promise<void> {
    // Before the token: a preflight carries none, and a page's request is refused whether or not it has one.
    if (guardBrowser(browser, req, res)) return;
    const principal = principals ? principalOf(req.headers.authorization, principals) : undefined;
    if ((principals && !principal) || (expected && !authorized(req.headers.authorization, expected))) {
      req.resume();
      throw unauthorized();
    }
    const c = principal ? principalContext(ctx, principal.name) : ctx;
    if (kind === 'request' && open.request > maxConcurrent) {
      req.resume();
      throw new ApiError(429, `more than ${maxConcurrent} requests at once: try again shortly`, 'rate_limit_error', null, 'too_many_requests');
    }
    if (kind === 'stream' && open.stream > maxStreams) {
      req.resume();
      throw new ApiError(
        429,
        `more than ${maxStreams} event streams open at once: close one, or try again shortly`,
        'rate_limit_error',
        null,
        'too_many_streams',
      );
    }
    const url = new URL(req.url ?? '/', 'http://serve');
    const path = trimTrailingSlashes(url.pathname) || '/';
    const method = req.method ?? 'GET';
    if (path === '/v1/chat/completions') {
      allow(method, 'POST');
      return chatCompletions(c, req, res, await readJson(req));
    }
    if (path === '/v1/models') {
      allow(method, 'GET');
      return sendJson(res, 200, modelList(opts.profiles()));
    }
    if (path.startsWith('/v1/models/')) {
      allow(method, 'GET');
      const name = decodeURIComponent(path.slice('/v1/models/'.length));
      const list = modelList(opts.profiles());
      const m = list.data.find((d) => d.id === name);
      if (!m) throw notFound(`no model profile ${quoted(name)}`, 'model_not_found');
      return sendJson(res, 200, m);
    }
    if (path === '/openapi.json') {
      allow(method, 'GET');
      return sendJson(res, 200, openApiDocument());
    }
    if (path === '/health') {
      allow(method, 'GET');
      return sendJson(res, 200, { ok: true });
    }
    const session = /^\/v1\/sessions\/([^/]+)(?:\/(events|interrupt|answer|approve))?$/.exec(path);
    if (session) {
      const sessionId = sessionIdOf(safeDecode(session[1]!), 'session id (path)');
      const action = session[2];
      if (action === 'events') {
        allow(method, 'GET');
        return sessionEvents(c, req, res, sessionId, url.searchParams);
      }
      if (action) allow(method, 'POST');
      else allow(method, 'GET');
      const body = action ? await readJson(req, true) : undefined;
      return sendJson(
        res,
        200,
        await sessionRoute(c, sessionId, action as 'interrupt' | 'answer' | 'approve' | undefined, body, url.searchParams, req),
      );
    }
    throw notFound(`no route ${method} ${quoted(path).slice(1, -1)} (the API: GET /openapi.json)`, 'unknown_url');
  }

  return listen(server, opts.port ?? DEFAULT_SERVE_PORT, opts.host ?? '127.0.0.1');
}

/** A principal's requests: its own session ids, and its conversations in its own memory scope and skills store. */
function principalContext(ctx: CompletionsContext, name: string): CompletionsContext {
  const start = { ...ctx.defaults.start, memoryScope: principalScope(name), skillsStore: principalSkillsStore(name) };
  return { ...ctx, principal: name, defaults: { ...ctx.defaults, start } };
}

/** Seconds a 429 asks the client to wait (Retry-After; the OpenAI clients honour it). */
const RETRY_AFTER_SEC = 1;
/** Answered from this process alone: never limited. */
const UNLIMITED = new Set(['/health', '/v1/models', '/openapi.json']);

/** Which count a request is in: an events stream, another request, or none (the cheap answers). */
function limitOf(url: string | undefined): 'request' | 'stream' | undefined {
  const p = trimTrailingSlashes((url ?? '/').split('?')[0]!) || '/';
  if (UNLIMITED.has(p) || p.startsWith('/v1/models/')) return undefined;
  return /^\/v1\/sessions\/[^/]+\/events$/.test(p) ? 'stream' : 'request';
}

function allow(method: string, expected: string): void {
  if (method !== expected) throw new ApiError(405, `use ${expected}`, 'invalid_request_error', null, 'method_not_allowed');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function modelList(p: ProfileNames & { models?: Record<string, string> }) {
  return {
    object: 'list' as const,
    data: p.names.map((id) => ({
      id,
      object: 'model' as const,
      created: 0,
      owned_by: 'hermes',
      ...(p.models?.[id]
        ? { hermes: { upstream_model: p.models[id], default: id === p.defaultName } }
        : { hermes: { default: id === p.defaultName } }),
    })),
  };
}

/** The body as JSON; 415 without Content-Type application/json, 413 past MAX_BODY_BYTES, 400 when it is not JSON. `optional`: an empty body is undefined. */
async function readJson(req: IncomingMessage, optional = false): Promise<unknown> {
  requireJson(req);
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    throw tooLarge();
  }
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(tooLarge());
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
  if (optional && !text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(null, 'the body is not JSON', 'invalid_json');
  }
}

function tooLarge(): ApiError {
  return new ApiError(
    413,
    `the body is larger than ${MAX_BODY_BYTES} bytes (Temporal's payload limit is 2 MiB)`,
    'invalid_request_error',
    null,
    'request_too_large',
  );
}
