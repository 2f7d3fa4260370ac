// `hermes mcp --http`: the MCP streamable HTTP transport at POST /mcp, stateless (a server and a transport per
// request: conversations are durable, so there is no session of ours to keep or lose at a restart). In front of
// it, what `hermes serve` has: the browser guard (src/http-api/browser-guard.ts), the bearer token or the
// principals' tokens, the body limit and the cap on requests at once.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Hermes } from '../client';
import { guardBrowser } from '../http-api/browser-guard';
import { ApiError, asApiError, notFound, unauthorized } from '../http-api/errors';
import { principalOf, type Principal } from '../http-api/principals';
import { MAX_BODY_BYTES } from '../http-api/server';
import { authorized, listen, trimTrailingSlashes, type RunningHttpServer } from '../shared/http-server';
import type { McpContext } from './context';
import { createMcpServer } from './server';

export const MCP_PATH = '/mcp';

export interface McpHttpOptions {
  hermes: Hermes;
  port: number;
  host: string;
  /** Every request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Each client its own token; each sees only its own conversations (src/mcp-server/caller.ts). */
  principals?: Principal[];
  allowOrigins?: string[];
  allowHosts?: string[];
  /** Requests handled at once; more get 429. Default 64, as hermes serve. */
  maxConcurrent?: number;
  context: Omit<McpContext, 'hermes' | 'caller'>;
}

/** Seconds a 429 asks the client to wait. */
const RETRY_AFTER_SEC = 1;

export async function startMcpHttp(o: McpHttpOptions): Promise<RunningHttpServer> {
  const expected = o.token !== undefined ? Buffer.from(`Bearer ${o.token}`) : undefined;
  const principals = o.principals?.length ? o.principals : undefined;
  const maxConcurrent = o.maxConcurrent ?? 64;
  const browser = {
    allowedOrigins: (o.allowOrigins ?? []).map((x) => x.toLowerCase()),
    allowedHosts: (o.allowHosts ?? []).map((x) => x.toLowerCase()),
    boundHost: o.host,
    tokenRequired: expected !== undefined || principals !== undefined,
    extraHeaders: ['Mcp-Protocol-Version', 'Mcp-Session-Id'],
  };
  let open = 0;

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Before the token: a preflight carries none, and a page's request is refused whether or not it has one.
    if (guardBrowser(browser, req, res)) return;
    const principal = principals ? principalOf(req.headers.authorization, principals) : undefined;
    if ((principals && !principal) || (expected && !authorized(req.headers.authorization, expected))) throw unauthorized();
    if (open > maxConcurrent) throw new ApiError(429, `more than ${maxConcurrent} requests at once: try again shortly`, 'rate_limit_error');
    const path = trimTrailingSlashes(new URL(req.url ?? '/', 'http://mcp').pathname);
    if (path !== MCP_PATH) throw notFound(`no route ${path || '/'}: the MCP endpoint is POST ${MCP_PATH}`);
    // Stateless: no event stream to open (GET) and no session to end (DELETE).
    if (req.method !== 'POST') throw new ApiError(405, `use POST ${MCP_PATH} (this server keeps no sessions)`, 'invalid_request_error');
    const server = createMcpServer({ ...o.context, hermes: o.hermes, caller: principal ? { principal: principal.name } : {} });
    // The SDK checks Content-Type (application/json), Accept and the body's size itself.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: MAX_BODY_BYTES });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  const http = createServer((req, res) => {
    open++;
    res.once('close', () => open--);
    route(req, res).catch((err: unknown) => {
      const e = asApiError(err);
      if (e.status >= 500) o.context.log(`${req.method} ${req.url}: ${e.status} ${e.message}`);
      req.resume();
      if (res.headersSent) return void res.end();
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (e.status === 401) headers['WWW-Authenticate'] = 'Bearer';
      if (e.status === 429) headers['Retry-After'] = String(RETRY_AFTER_SEC);
      // A JSON-RPC error without an id, as the SDK answers what it refuses at the HTTP level.
      res.writeHead(e.status, headers).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: e.message }, id: null }));
    });
  });
  return listen(http, o.port, o.host);
}
