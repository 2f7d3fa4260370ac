// `hermes serve`'s two limits over real HTTP (src/http-api/server.ts): idle `/events` streams are counted apart from
// requests, `/health` and `/v1/models` are counted by neither, and a 429 says when to come back (Retry-After).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../src/http-api/server';
import { answer, createHarness, type Harness } from './helpers/harness';

let h: Harness;
const servers: RunningServe[] = [];

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await h?.close();
});

const post = (s: RunningServe, session: string, content: string) =>
  fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Hermes-Session-Id': session },
    body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content }] }),
  });

describe('hermes serve: limits', () => {
  it('idle event streams do not use up --max-concurrent; health and models always answer; 429 carries Retry-After', async () => {
    const s = await startServe({
      hermes: h.hermes,
      port: 0,
      profiles: () => ({ defaultName: 'default', names: ['default'] }),
      maxConcurrent: 1,
      maxStreams: 2,
    });
    servers.push(s);
    const session = `limits-${Date.now().toString(36)}`;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.mock.push(answer('opened'), async () => (await gate, answer('slow done')));
    await h.run(async () => {
      expect((await post(s, session, 'open it')).status).toBe(200);
      // Two idle streams: the streams' limit is full, the requests' is not touched.
      const streams = [new AbortController(), new AbortController()];
      const opened = await Promise.all(streams.map((ac) => fetch(`${s.url}/v1/sessions/${session}/events`, { signal: ac.signal })));
      expect(opened.map((r) => r.status)).toEqual([200, 200]);
      const third = await fetch(`${s.url}/v1/sessions/${session}/events`);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('1');
      expect(((await third.json()) as { error: { code: string } }).error.code).toBe('too_many_streams');
      expect((await fetch(`${s.url}/v1/sessions/${session}`)).status).toBe(200);
      expect((await fetch(`${s.url}/health`)).status).toBe(200);

      // One request in flight: the requests' limit (1) is full; a second request is refused, the cheap ones are not.
      const slow = post(s, session, 'take your time');
      await h.mock.waitForRequest(2, 30_000);
      const refused = await fetch(`${s.url}/v1/sessions/${session}`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { error: { type: string; code: string } }).error).toMatchObject({
        type: 'rate_limit_error',
        code: 'too_many_requests',
      });
      expect((await fetch(`${s.url}/health`)).status).toBe(200);
      expect((await fetch(`${s.url}/v1/models`)).status).toBe(200);
      expect((await fetch(`${s.url}/v1/models/default`)).status).toBe(200);
      expect((await fetch(`${s.url}/openapi.json`)).status).toBe(200);
      release();
      expect((await (await slow).json()) as unknown).toMatchObject({ choices: [{ message: { content: 'slow done' } }] });
      for (const ac of streams) ac.abort();
      // A closed stream frees its place.
      await new Promise((r) => setTimeout(r, 200));
      const again = new AbortController();
      expect((await fetch(`${s.url}/v1/sessions/${session}/events`, { signal: again.signal })).status).toBe(200);
      again.abort();
    });
  });
});
