// The browser boundary of `hermes serve`: a web page must not be able to drive the agent. A page can send a
// "simple" cross-origin request (text/plain or form bodies, no preflight) and, by DNS rebinding, make its own
// origin resolve to 127.0.0.1. So: a request that carries an `Origin` (browsers send one on every POST and on
// every cross-origin fetch) is refused unless that origin was configured; the `Host` must name this machine,
// the bound host or a configured host (a rebound page's requests carry the attacker's name); and a POST body is
// read only as `application/json`, which no page can send cross-origin without a preflight that we refuse.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors';

export interface BrowserPolicy {
  /** Origins (`scheme://host[:port]`, lowercase) that may call the API from a browser; CORS is answered for them. */
  allowedOrigins: string[];
  /** Host names (no port) accepted in `Host` besides loopback ones and the bound host. */
  allowedHosts: string[];
  /** The host the server is bound to. */
  boundHost: string;
  /** With a bearer token a rebound page cannot authenticate (a page cannot read the token), so `Host` is not checked. */
  tokenRequired: boolean;
  /** Request headers a page's preflight may ask for besides serve's, and response headers it may read (hermes mcp's `Mcp-*`). */
  extraHeaders?: string[];
}

const CORS_HEADERS = 'Authorization, Content-Type, X-Hermes-Session-Id, Idempotency-Key, Last-Event-ID';
const EXPOSED = 'X-Hermes-Conversation-Id, X-Hermes-Session-Id, Retry-After';

/** 127.0.0.0/8, ::1 and localhost: reachable only from this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** A configured origin in the form browsers send it; throws on anything else (a path, `*`, no scheme). */
export function normalizeOrigin(raw: string): string {
  const s = raw.trim();
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new Error(`"${raw}" is not an origin: use scheme://host[:port], e.g. http://localhost:3000`);
  }
  if (!/^https?:$/.test(u.protocol) || u.origin === 'null' || s.replace(/\/$/, '').toLowerCase() !== u.origin.toLowerCase())
    throw new Error(`"${raw}" is not an origin: use scheme://host[:port] with no path, e.g. http://localhost:3000`);
  return u.origin.toLowerCase();
}

/** The host name of a Host header value, without the port; brackets of an IPv6 literal kept off. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') < 0 ? undefined : h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

function forbidden(message: string, code: string): ApiError {
  return new ApiError(403, message, 'permission_error', null, code);
}

/**
 * Checks Host and Origin; answers a CORS preflight of an allowed origin itself (returns true: handled) and adds
 * the CORS headers for an allowed origin. Throws 403 for a request a web page may have made.
 */
export function guardBrowser(p: BrowserPolicy, req: IncomingMessage, res: ServerResponse): boolean {
  const host = req.headers.host;
  if (!p.tokenRequired && host !== undefined) {
    const name = hostName(host);
    const bound = p.boundHost.replace(/^\[|\]$/g, '').toLowerCase();
    if (!isLoopback(name) && name !== bound && !p.allowedHosts.includes(name)) {
      throw forbidden(
        `Host "${host.slice(0, 100)}" is not this server's: use a loopback address or name (a DNS-rebinding page sends its own; ` +
          'a proxy that forwards another name: --allow-host NAME)',
        'host_not_allowed',
      );
    }
  }
  const origin = req.headers.origin;
  if (origin === undefined) {
    // No Origin but a browser's fetch metadata saying another site: still a page.
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site')
      throw forbidden('a request from a web page on another site is refused (Sec-Fetch-Site)', 'origin_not_allowed');
    return false;
  }
  const o = origin.trim().toLowerCase();
  if (!p.allowedOrigins.includes(o)) {
    throw forbidden(
      `Origin "${origin.slice(0, 100)}" is not allowed: a web page cannot call this API unless its origin is configured (--allow-origin ORIGIN)`,
      'origin_not_allowed',
    );
  }
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  const extra = p.extraHeaders?.length ? `, ${p.extraHeaders.join(', ')}` : '';
  res.setHeader('Access-Control-Expose-Headers', EXPOSED + extra);
  if (req.method === 'OPTIONS') {
    req.resume();
    res.writeHead(204, {
      'Access-Control-Allow-Methods': 'GET, POST',
      'Access-Control-Allow-Headers': CORS_HEADERS + extra,
      'Access-Control-Max-Age': '600',
    });
    res.end();
    return true;
  }
  return false;
}

/** A POST is read only with `Content-Type: application/json` (parameters such as charset allowed): else 415. */
export function requireJson(req: IncomingMessage): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return;
  req.resume();
  throw new ApiError(
    415,
    `the body must be JSON with Content-Type: application/json, got ${type ? `"${type.slice(0, 100)}"` : 'no Content-Type'}`,
    'invalid_request_error',
    'Content-Type',
    'unsupported_media_type',
  );
}
