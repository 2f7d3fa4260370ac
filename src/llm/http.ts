// The HTTP client under the openai and Anthropic SDKs for model calls. Two reasons it is not their default fetch:
// - Limits. Node's built-in fetch (undici) gives up on a response whose headers have not arrived within 300 s
//   (headersTimeout) and on a body silent for 300 s (bodyTimeout), whatever timeout the SDK was given. A
//   non-streaming chat completion sends its headers only when the reply is complete, so on a slow local model every
//   call past 300 s failed as "timed out" even with HERMES_MODEL_TIMEOUT=600 (seen with Qwen2.5-Coder-1.5B on 2 busy
//   cores). Here the profile's timeout is the only limit: undici's own are set just past it, so the SDK's timeout
//   (with its clear error) fires first.
// - Cost. Every step makes one such call, and undici's WHATWG fetch costs ~0.7 ms more per call than its `request`
//   (measured: 1.86 vs 1.13 ms a streamed reply from a local endpoint, 2.85 vs 1.59 ms of CPU). The SDKs need only a
//   fetch-shaped function: the request's method, headers, body and signal in, a Response with a streamable body out.
//   A network failure rejects with undici's own error ("connect ECONNREFUSED 127.0.0.1:8080"), which the SDKs wrap
//   as their connection error, where fetch said only "fetch failed".
import { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';

/** Margin past the profile's timeout for undici's own limits, so the SDK's timeout is the one that fires. */
const MARGIN_MS = 5_000;

/** Redirects followed, as fetch does: a proxy in front of an endpoint may move it. */
const MAX_REDIRECTIONS = 5;

/** Statuses whose response has no body (a Response with one is refused). */
const NULL_BODY = new Set([101, 204, 205, 304]);

export function modelDispatcherOptions(timeoutMs: number): { headersTimeout: number; bodyTimeout: number } {
  return { headersTimeout: timeoutMs + MARGIN_MS, bodyTimeout: timeoutMs + MARGIN_MS };
}

/** A fetch for the model SDKs whose connection limits follow the model profile's timeout. */
export function modelFetch(timeoutMs: number): typeof fetch {
  const dispatcher = new Agent(modelDispatcherOptions(timeoutMs));
  return (async (url: Parameters<typeof fetch>[0], init: RequestInit = {}) => {
    const res = await request(String(url instanceof Request ? url.url : url), {
      method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: headerRecord(init.headers),
      body: requestBody(init.body),
      signal: init.signal ?? undefined,
      dispatcher,
      maxRedirections: MAX_REDIRECTIONS,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else if (value !== undefined) headers.set(name, value);
    }
    if (NULL_BODY.has(res.statusCode)) {
      res.body.resume();
      return new Response(null, { status: res.statusCode, headers });
    }
    return new Response(Readable.toWeb(res.body) as ReadableStream<Uint8Array>, { status: res.statusCode, headers });
  }) as typeof fetch;
}

function headerRecord(h: RequestInit['headers']): Record<string, string> | undefined {
  if (!h) return undefined;
  const out: Record<string, string> = {};
  new Headers(h).forEach((value, name) => (out[name] = value));
  return out;
}

/** The SDKs send JSON text (or bytes); a web stream body is read through Node's stream. */
function requestBody(b: RequestInit['body']): string | Uint8Array | Readable | undefined {
  if (b === undefined || b === null) return undefined;
  if (typeof b === 'string' || b instanceof Uint8Array) return b;
  if (b instanceof ArrayBuffer) return new Uint8Array(b);
  if (b instanceof ReadableStream) return Readable.fromWeb(b as import('node:stream/web').ReadableStream);
  if (b instanceof URLSearchParams) return b.toString();
  throw new TypeError(`model request body of an unsupported kind (${Object.prototype.toString.call(b)})`);
}
