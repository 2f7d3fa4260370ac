// From a tool call to one HTTP request (pure: no I/O, the secret is passed in).
import { ToolResultError } from '../catalog';
import { PLACEHOLDER, type HttpToolDef } from './schema';

export interface BuiltRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

const BODYLESS = new Set(['GET', 'DELETE']);

/** A value as it goes into a path, query string or form: scalars as text, anything else as JSON. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? String(value) : JSON.stringify(value);
}

function appendParam(params: URLSearchParams, name: string, value: unknown): void {
  // Arrays repeat the key (tag=a&tag=b), which is what most form and query parsers understand.
  if (Array.isArray(value)) for (const v of value) params.append(name, text(v));
  else params.append(name, text(value));
}

/**
 * The request for `args` (model-facing names). Path placeholders take their argument; the other arguments go to
 * the query or the body (as listed, else by method), renamed by paramMap. `secret` is the auth value.
 */
export function buildRequest(def: HttpToolDef, args: Record<string, unknown>, secret?: string): BuiltRequest {
  const used = new Set<string>();
  const url = def.endpoint.replace(PLACEHOLDER, (_m, name: string) => {
    const value = args[name];
    if (value === undefined || value === null || value === '') throw new ToolResultError(`Missing argument "${name}" (needed in the URL).`);
    used.add(name);
    return encodeURIComponent(text(value));
  });
  const target = new URL(url);
  const query = new Set(def.query ?? []);
  const body = new Set(def.body ?? []);
  const rest = BODYLESS.has(def.method) ? query : body;
  const bodyFields: Record<string, unknown> = {};
  let hasBody = false;
  for (const [name, value] of Object.entries(args)) {
    if (used.has(name) || value === undefined || value === null) continue;
    const apiName = def.paramMap[name] ?? name;
    const inBody = body.has(name) || (!query.has(name) && rest === body);
    if (inBody) {
      bodyFields[apiName] = value;
      hasBody = true;
    } else appendParam(target.searchParams, apiName, value);
  }
  const headers: Record<string, string> = { accept: 'application/json, text/*;q=0.9, */*;q=0.5', ...lower(def.headers) };
  let payload: string | undefined;
  if (hasBody || (!BODYLESS.has(def.method) && def.contentType === 'json')) {
    if (def.contentType === 'form') {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(bodyFields)) appendParam(form, k, v);
      payload = form.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else {
      payload = JSON.stringify(bodyFields);
      headers['content-type'] = 'application/json';
    }
  }
  if (def.auth && secret !== undefined) {
    if (def.auth.type === 'bearer') headers.authorization = `Bearer ${secret}`;
    else headers[def.auth.header.toLowerCase()] = secret;
  }
  return { url: target.toString(), method: def.method, headers, body: payload };
}

function lower(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
