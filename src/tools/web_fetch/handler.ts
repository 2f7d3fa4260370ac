// web_fetch: GET an http(s) URL and return it as text. Every hop (the first request and each redirect,
// followed by hand) is checked against the address policy (address-policy.ts) after DNS resolution, inside the
// socket's own `lookup`, so the address checked is the address connected to: a DNS answer that changes between
// a check and the connection (rebinding) cannot slip through. Errors are results the model reads.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { loadWebConfig } from '../../llm/profiles';
import { builtinTool, ToolError, type ToolContext, type ToolHandler } from '../handler';
import { webFetchSpec } from './spec';
import { formatSize } from '../handler-helpers/fs-util';
import { shown } from '../handler-helpers/heartbeat-text';
import { AddressGuard, guardedLookup, unbracket, type Resolve, type WebConfig } from './address-policy';
import { bodyText, contentKind, htmlTitle, mimeOf } from './response-body';

export interface WebFetchOptions extends WebConfig {
  maxRedirects?: number;
  /** Name resolution (tests map names to addresses); default the system resolver, every address. */
  resolve?: Resolve;
}

export const WEB_DEFAULTS = { maxBytes: 2 * 1024 * 1024, timeoutMs: 20_000, maxRedirects: 5 };
/** Of an HTTP error's body, what the model sees. */
const ERROR_BODY_CHARS = 1_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HEADERS = {
  'user-agent': 'hermes-temporal web_fetch',
  accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5',
  'accept-encoding': 'gzip, deflate, br',
};

export function createWebFetch(options: WebFetchOptions | (() => WebFetchOptions)): ToolHandler<typeof webFetchSpec.schema> {
  let ready: { o: WebFetchOptions; guard: AddressGuard } | undefined;
  return async (args, ctx) => {
    if (!ready) {
      const o = typeof options === 'function' ? options() : options;
      ready = { o, guard: new AddressGuard(o) };
    }
    return webFetch(args.url, ready.o, ready.guard, ctx);
  };
}

/** The worker's handler: its policy and caps come from the environment and the config file, read on first use. */
export const webFetchHandler = createWebFetch(() => loadWebConfig());

async function webFetch(raw: string, o: WebFetchOptions, guard: AddressGuard, ctx: ToolContext): Promise<string> {
  const maxBytes = o.maxBytes ?? WEB_DEFAULTS.maxBytes;
  const timeoutMs = o.timeoutMs ?? WEB_DEFAULTS.timeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  let url = parseUrl(raw);
  const first = url.href;
  // Slow DNS, a slow server: the activity still shows it is alive, and what it is at (the Web UI's card): the
  // URL without its query (where tokens go), redacted, and the bytes read so far.
  const started = Date.now();
  let bytes = 0;
  const details = () => ({
    url: shown(`${url.origin}${url.pathname}`, ctx.redact),
    elapsedSec: Math.floor((Date.now() - started) / 1000),
    bytes,
  });
  const send = ctx.heartbeat;
  const beat = setInterval(() => send(details()), 1_000);
  // readCapped heartbeats per chunk with the count so far.
  const counting: ToolContext = {
    ...ctx,
    heartbeat: (d?: unknown) => {
      bytes = (d as { bytes?: number } | undefined)?.bytes ?? bytes;
      send(details());
    },
  };
  try {
    for (let hop = 0; ; hop++) {
      const res = await request(url, guard, o.resolve, signal);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location) {
        res.destroy();
        if (hop >= (o.maxRedirects ?? WEB_DEFAULTS.maxRedirects))
          throw new ToolError(`${first}: stopped after ${hop} redirects (the next was to ${location})`);
        url = parseUrl(location, url);
        continue;
      }
      return await readResponse(res, url, first, maxBytes, counting);
    }
  } catch (err) {
    if (ctx.signal.aborted) throw err; // cancelled: the activity reports that, not a result
    if (timeout.aborted) throw new ToolError(`${url.href}: no complete answer within ${timeoutMs / 1000} s (timed out)`);
    if (err instanceof ToolError) throw err;
    throw new ToolError(`${url.href}: ${networkMessage(err)}`);
  } finally {
    clearInterval(beat);
  }
}

function parseUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new ToolError(`not a URL: ${JSON.stringify(raw)}; give an absolute http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(
      `${base ? `redirected to ${url.href}, ` : ''}${url.protocol} URLs are not fetched; web_fetch takes http:// and https:// only`,
    );
  }
  return url;
}

/** One GET. The address is checked in `lookup` (names) or here (IP literals, which skip lookup). */
function request(url: URL, guard: AddressGuard, resolve: WebFetchOptions['resolve'], signal: AbortSignal): Promise<IncomingMessage> {
  const host = unbracket(url.hostname);
  if (isIP(host)) {
    const refused = guard.refusal(host, host);
    if (refused) return Promise.reject(new ToolError(refused));
  }
  return new Promise((done, fail) => {
    const req = (url.protocol === 'https:' ? https : http).request(
      url,
      // agent: false: a pooled keep-alive socket would be reused without a lookup, so without a check.
      { method: 'GET', headers: HEADERS, signal, agent: false, lookup: guardedLookup(guard, resolve, (message) => new ToolError(message)) },
      done,
    );
    req.on('error', fail);
    req.end();
  });
}

async function readResponse(res: IncomingMessage, url: URL, first: string, maxBytes: number, ctx: ToolContext): Promise<string> {
  const status = res.statusCode ?? 0;
  const contentType = res.headers['content-type'];
  const kind = contentKind(contentType);
  const mime = mimeOf(contentType) || 'no content type';
  const length = Number(res.headers['content-length']);
  const size = Number.isFinite(length) ? formatSize(length) : 'size not given';
  if (status >= 400) {
    // A short body is enough to tell a "not found" page from an API's JSON error.
    const { buf } = await readCapped(res, Math.min(maxBytes, 64 * 1024), ctx);
    const text = kind === 'binary' ? undefined : bodyText(buf, kind, contentType, url.href)?.text;
    const shown = text ? `: ${text.slice(0, ERROR_BODY_CHARS)}${text.length > ERROR_BODY_CHARS ? ' …' : ''}` : '';
    const hint = status >= 500 ? ' (a server error; it may be temporary)' : '';
    throw new ToolError(`HTTP ${status} ${res.statusMessage ?? ''}`.trim() + ` from ${url.href}${hint}${shown}`);
  }
  if (kind === 'binary') {
    res.destroy();
    throw new ToolError(`${url.href} is ${mime} (${size}), not text; web_fetch returns HTML, plain text, JSON, XML and other text only`);
  }
  const { buf, truncated } = await readCapped(res, maxBytes, ctx);
  const body = bodyText(buf, kind, contentType, url.href);
  if (!body) throw new ToolError(`${url.href} is binary content (${mime}, ${size}); web_fetch returns text only`);
  const title = body.html ? htmlTitle(buf.subarray(0, 65_536).toString('utf8')) : undefined;
  const lines = [
    `URL: ${url.href}${url.href !== first ? ` (redirected from ${first})` : ''}`,
    ...(title ? [`Title: ${title}`] : []),
    `Status: ${status}; ${mime}, ${formatSize(buf.length)}${truncated ? ' read' : ''}${body.html ? ', converted to text' : ''}`,
    '',
    body.text || '(empty)',
  ];
  if (truncated) lines.push(`[stopped reading at ${formatSize(maxBytes)}; the rest is not shown]`);
  return lines.join('\n');
}

/** The body, decompressed, up to `maxBytes` (counted after decompression, so a small bomb cannot blow up). */
async function readCapped(res: IncomingMessage, maxBytes: number, ctx: ToolContext): Promise<{ buf: Buffer; truncated: boolean }> {
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  const stream: Readable = decoder ? pipeline(res, decoder, () => undefined) : res;
  const chunks: Buffer[] = [];
  let read = 0;
  let truncated = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      ctx.heartbeat({ bytes: read });
      const room = maxBytes - read;
      if (chunk.length >= room) {
        chunks.push(chunk.subarray(0, room));
        read += room;
        truncated = chunk.length > room || !res.complete;
        break;
      }
      chunks.push(chunk);
      read += chunk.length;
    }
  } finally {
    res.destroy();
  }
  return { buf: Buffer.concat(chunks), truncated };
}

function networkMessage(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { hostname?: string };
  switch (e.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name could not be resolved (${e.code})`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `the host cannot be reached (${e.code})`;
    default:
      return e.code ? `${e.message} (${e.code})` : (e.message ?? String(err));
  }
}

export const webFetchTool = builtinTool(webFetchSpec, webFetchHandler);
