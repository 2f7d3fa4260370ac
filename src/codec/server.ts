// The Temporal codec server protocol over node:http, so the Web UI and the stock CLI (`--codec-endpoint`) can show
// encrypted payloads in clear to whoever runs it (with the key):
//   POST …/encode, POST …/decode   body and answer: {"payloads":[…]} as proto3 JSON (metadata values and data
//                                  base64); only the last path segment counts, so `/default/decode` works too
//   OPTIONS                        CORS preflight for the Web UI's origin
//   GET  …/health                  200 {"ok":true}
// With a token, every POST needs `Authorization: Bearer <token>` (401 otherwise). A request from a browser origin
// that is not allowed gets 403. Errors are JSON `{ "error": "…" }`: 400 for a bad body or a payload that does
// not decode (unknown key, wrong key), as the protocol asks.
import type { Payload, PayloadCodec } from '@temporalio/common';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { authorized, listen, trimTrailingSlashes, type RunningHttpServer } from '../shared/http-server';
import { PayloadDecryptError } from './aes';

export const DEFAULT_CODEC_PORT = 8888;
/**
 * Request headers the Web UI sends to a codec server: Content-Type, X-Namespace, and (when it passes its access
 * token, over https only) Authorization and Authorization-Extras.
 */
export const CORS_ALLOW_HEADERS = 'content-type, x-namespace, authorization, authorization-extras';
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** 0 picks a free port. Default 8888. */
  port?: number;
  /** Default 127.0.0.1: the server decrypts for anyone who can reach it. */
  host?: string;
  /** Browser origins allowed by CORS (the Web UI's), exact match. */
  origins?: string[];
  /** When set, requests need `Authorization: Bearer <token>`. */
  token?: string;
  /** Told about requests that failed (the CLI writes them to stderr). */
  onError?: (message: string) => void;
}

export type RunningCodecServer = RunningHttpServer;

interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
  [field: string]: unknown;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startCodecServer(opts: CodecServerOptions): Promise<RunningCodecServer> {
  const origins = new Set(opts.origins ?? []);
  const expected = opts.token ? Buffer.from(`Bearer ${opts.token}`) : undefined;
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      if (status >= 500 || err instanceof PayloadDecryptError) opts.onError?.(`${req.method} ${req.url}: ${message}`);
      if (!res.headersSent) send(res, status, { error: message }, status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {});
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!origins.has(origin)) throw new HttpError(403, `origin ${origin} is not allowed (hermes codec-server --origin)`);
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    res.setHeader('Vary', 'Origin');
    if (req.method === 'OPTIONS') {
      // Preflights carry no credentials: answered without the token.
      res.writeHead(204, {
        'Access-Control-Allow-Methods': 'POST, GET, OPTIONS',
        'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    const pathname = trimTrailingSlashes(new URL(req.url ?? '/', 'http://codec').pathname);
    const endpoint = pathname.split('/').pop();
    if (endpoint === 'health') {
      if (req.method !== 'GET') throw new HttpError(405, 'use GET');
      send(res, 200, { ok: true });
      return;
    }
    if (endpoint !== 'encode' && endpoint !== 'decode') throw new HttpError(404, 'not found: POST /encode or /decode');
    if (req.method !== 'POST') throw new HttpError(405, `use POST ${endpoint === 'encode' ? '/encode' : '/decode'}`);
    if (expected && !authorized(req.headers.authorization, expected)) {
      throw new HttpError(401, 'missing or wrong bearer token (Authorization: Bearer <token>)');
    }
    const input = parseBody(await readBody(req));
    const payloads = input.map(fromJson);
    let output: Payload[];
    try {
      output = endpoint === 'decode' ? await opts.codec.decode(payloads) : await opts.codec.encode(payloads);
    } catch (err) {
      throw new HttpError(400, err instanceof Error ? err.message : String(err));
    }
    // A payload the codec passed through unchanged goes back exactly as it came (fields this server does not know included).
    send(res, 200, { payloads: output.map((p, i) => (p === payloads[i] ? input[i] : toJson(p))) });
  }

  return listen(server, opts.port ?? DEFAULT_CODEC_PORT, opts.host ?? '127.0.0.1');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, `body larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(text: string): JsonPayload[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'body is not JSON: expected {"payloads":[…]}');
  }
  const payloads = (body as { payloads?: unknown } | null)?.payloads;
  if (payloads === undefined || payloads === null) return [];
  if (!Array.isArray(payloads) || !payloads.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p))) {
    throw new HttpError(400, 'expected {"payloads":[{"metadata":{…},"data":"<base64>"}, …]}');
  }
  return payloads as JsonPayload[];
}

/** proto3 JSON → Payload: bytes fields (metadata values, data) are base64 (standard or URL-safe). */
export function fromJson(p: JsonPayload): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) {
    if (typeof v !== 'string') throw new HttpError(400, `payload metadata "${k}" is not a base64 string`);
    metadata[k] = Buffer.from(v, 'base64');
  }
  if (p.data !== undefined && p.data !== null && typeof p.data !== 'string') throw new HttpError(400, 'payload data is not a base64 string');
  return { metadata, data: Buffer.from(p.data ?? '', 'base64') };
}

export function toJson(p: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) metadata[k] = Buffer.from(v).toString('base64');
  return p.data?.length ? { metadata, data: Buffer.from(p.data).toString('base64') } : { metadata };
}
