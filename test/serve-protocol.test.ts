// `hermes serve`'s protocol edges over real HTTP: `?wait` after a turn, a request that waits for an approval,
// long ids in errors, UTF-8 both ways.
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../src/http-api/server';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';

let h: Harness;
let s: RunningServe;

beforeAll(async () => {
  h = await createHarness();
  s = await startServe({ hermes: h.hermes, port: 0, profiles: () => ({ defaultName: 'default', names: ['default'] }) });
});
afterAll(async () => {
  await s?.close();
  await h?.close();
});

const post = (session: string | undefined, content: string) =>
  fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(session ? { 'X-Hermes-Session-Id': session } : {}) },
    body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content }] }),
  });

interface View {
  state: { status: string; turn: number } | null;
  last_turn: { turn: number; answer: string } | null;
  turn_in_progress?: boolean;
}

describe('hermes serve: protocol', () => {
  it('?wait after a turn gives that turn, never a null or an older last_turn', async () => {
    for (let i = 0; i < 4; i++) {
      const session = `wait-${i}-${Date.now().toString(36)}`;
      h.mock.push(answer(`first ${i}`), answer(`second ${i}`));
      await h.run(async () => {
        expect((await post(session, 'one')).status).toBe(200);
        // The second turn: once its request is in, the client reconnects with ?wait (the probe's race: the
        // workflow had not received the message yet and its state still showed turn 1 idle).
        const arrived = new Promise((r) => s.server.once('request', r));
        const second = post(session, 'two');
        await arrived;
        await new Promise((r) => setTimeout(r, 30 + 20 * i));
        const v = (await (await fetch(`${s.url}/v1/sessions/${session}?wait=25`)).json()) as View;
        expect({ inProgress: v.turn_in_progress, last: v.last_turn }, `try ${i}: ${JSON.stringify(v)}`).toMatchObject({
          inProgress: false,
          last: { turn: 2, answer: `second ${i}` },
        });
        expect((await second).status).toBe(200);
        // Without a wait, a view taken while the turn is out says so.
        h.mock.push(answer(`third ${i}`));
        const arrived3 = new Promise((r) => s.server.once('request', r));
        const third = post(session, 'three');
        await arrived3;
        await new Promise((r) => setTimeout(r, 30));
        const during = (await (await fetch(`${s.url}/v1/sessions/${session}`)).json()) as View;
        if (during.last_turn?.turn !== 3) expect(during.turn_in_progress).toBe(true);
        expect((await third).status).toBe(200);
      });
    }
  }, 120_000);

  it('a request that is not streamed and waits for an approval is answered at once with the pending approval', async () => {
    const session = `approval-${Date.now().toString(36)}`;
    const build = path.join(h.workspace, 'build');
    mkdirSync(build, { recursive: true });
    h.mock.push(toolCall('terminal', { command: `rm -rf ${build}` }, 'rm9'), answer('left it'));
    await h.run(async () => {
      const res = await Promise.race([post(session, 'clean the build'), new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
      expect(res).not.toBe('timeout');
      const body = (await (res as Response).json()) as {
        choices: Array<{ message: { content: string }; finish_reason: string }>;
        hermes: { status: string; waiting_for: string; call_id: string; answer_with: string };
      };
      expect(body.hermes).toMatchObject({ status: 'waiting', waiting_for: 'approval', call_id: 'rm9' });
      expect(body.hermes.answer_with).toBe(`POST /v1/sessions/${session}/approve {"call_id": "rm9", "decision": "approve"|"deny"}`);
      expect(body.choices[0]!.message.content).toMatch(/^\[waiting for approval\] .*rm -rf .*build/s);
      // The turn still waits; approving it (as said) lets it finish, and ?wait then gives the answer.
      const approve = await fetch(`${s.url}/v1/sessions/${session}/approve`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ call_id: 'rm9', decision: 'deny' }),
      });
      expect(approve.status).toBe(200);
      const v = (await (await fetch(`${s.url}/v1/sessions/${session}?wait=30`)).json()) as View;
      expect(v).toMatchObject({ turn_in_progress: false, last_turn: { turn: 1, answer: 'left it' } });
    });
  }, 60_000);

  it('echoes no long id whole: a 10 KB session id, model name or path comes back cut short', async () => {
    const long = 'x'.repeat(10_000);
    const cases: Array<Promise<Response>> = [
      fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Hermes-Session-Id': long },
        body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content: 'hi' }] }),
      }),
      fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content: 'hi' }], metadata: { session_id: `${long}/` } }),
      }),
      fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: long, messages: [{ role: 'user', content: 'hi' }] }),
      }),
      fetch(`${s.url}/v1/sessions/${long}`),
      fetch(`${s.url}/v1/models/${long}`),
      fetch(`${s.url}/v1/${long}`),
    ];
    for (const res of await Promise.all(cases)) {
      const body = (await res.json()) as { error: { message: string } };
      expect(res.status, body.error.message.slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(body.error.message.length, body.error.message.slice(0, 200)).toBeLessThan(400);
      expect(body.error.message).toContain('…');
    }
  });

  it('keeps UTF-8 whole both ways: in the message (split across body chunks), the answer and the stream', async () => {
    const text = 'ünï ✓ 日本 🎉';
    const session = `utf8-${Date.now().toString(36)}`;
    h.mock.push(answer(`answer: ${text}`), answer(`streamed: ${text}`));
    const before = h.mock.requests.length;
    await h.run(async () => {
      // The body sent in two writes that cut a character in half.
      const body = Buffer.from(JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content: text }] }), 'utf8');
      const cut = body.indexOf(Buffer.from('ü')) + 1;
      const plain = await rawPost(`/v1/chat/completions`, { 'X-Hermes-Session-Id': session }, [body.subarray(0, cut), body.subarray(cut)]);
      expect(JSON.parse(plain.text).choices[0].message.content).toBe(`answer: ${text}`);
      // The charset is said: a client that guesses one for a JSON body without it (Python requests' .text) garbles ünï.
      expect(plain.type).toBe('application/json; charset=utf-8');
      const res = await fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Hermes-Session-Id': session },
        body: JSON.stringify({ model: 'hermes', stream: true, messages: [{ role: 'user', content: text }] }),
      });
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const sse = await res.text();
      const content = sse
        .split('\n')
        .filter((l) => l.startsWith('data: {'))
        .map((l) => (JSON.parse(l.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content ?? '')
        .join('');
      expect(content).toBe(`streamed: ${text}`);
      const viewRes = await fetch(`${s.url}/v1/sessions/${session}`);
      expect(viewRes.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(((await viewRes.json()) as View).last_turn?.answer).toBe(`streamed: ${text}`);
      const missing = await fetch(`${s.url}/v1/sessions/nothing-${text.length}`);
      expect(missing.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });
    const seen = h.mock.requests.slice(before).map((r) => r.messages.filter((m) => m.role === 'user').map((m) => m.content));
    expect(seen.flat().filter((c) => String(c).includes(text))).toHaveLength(3);
  }, 60_000);

  it('names a request without a session after its last user message, not the rendered earlier ones', async () => {
    h.mock.push(answer('one'), answer('two'));
    const ids = await h.run(async () => {
      const out: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${s.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            model: 'hermes',
            messages: [
              { role: 'user', content: 'hello there' },
              { role: 'assistant', content: 'hi' },
              { role: 'user', content: 'Deploy the staging branch now' },
            ],
          }),
        });
        expect(res.status).toBe(200);
        out.push(res.headers.get('x-hermes-conversation-id')!);
      }
      return out;
    });
    for (const id of ids) expect(id).toMatch(/^hermes-deploy-the-staging-branch-now-[0-9a-z]{6}$/);
    expect(new Set(ids).size).toBe(2);
    const d = await h.client.workflow.getHandle(ids[0]!).describe();
    expect(await d.staticSummary()).toBe('Deploy the staging branch now');
  });
});

/** A POST whose body goes out in the given pieces (a socket write each); the response body as text. */
function rawPost(urlPath: string, headers: Record<string, string>, pieces: Buffer[]): Promise<{ type?: string; text: string }> {
  return new Promise((resolve, reject) => {
    const size = pieces.reduce((n, p) => n + p.length, 0);
    const req = request(
      {
        host: '127.0.0.1',
        port: s.port,
        method: 'POST',
        path: urlPath,
        headers: { 'Content-Type': 'application/json', 'Content-Length': size, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ type: res.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.flushHeaders();
    req.write(pieces[0]);
    setTimeout(() => req.end(pieces[1]), 50);
  });
}
