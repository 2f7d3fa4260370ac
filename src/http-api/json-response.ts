// A JSON answer of `hermes serve`. The charset is said: JSON is UTF-8, but some clients guess a charset for a
// body without one (Python requests' `.text` may take ünï for Latin-1).
import type { ServerResponse } from 'node:http';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': JSON_CONTENT_TYPE, ...headers });
  res.end(JSON.stringify(body));
}
