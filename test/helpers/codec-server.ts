// A codec server for a describe block (started before its tests, closed after): its URL, the bearer token it wants,
// the one origin it allows (the Web UI's), and a POST with that token.
import { afterAll, beforeAll } from 'vitest';
import type { PayloadCodec } from '@temporalio/common';
import { startCodecServer, type RunningCodecServer } from '../../src/codec/server';

export function codecServerFixture(codec: PayloadCodec, mark: string) {
  let s: RunningCodecServer;
  const TOKEN = `tok-${mark}`;
  const UI = 'http://localhost:8233';
  beforeAll(async () => {
    s = await startCodecServer({ codec, port: 0, origins: [UI], token: TOKEN });
  });
  afterAll(async () => {
    await s?.close();
  });
  const post = (endpoint: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${s.url}${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  return { TOKEN, UI, post, url: () => s.url };
}
