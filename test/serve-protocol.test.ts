// `hermes serve`'s protocol edges over real HTTP: `?wait` after a turn, a request that waits for an approval,
// long ids in errors, UTF-8 both ways.
import { mkdirSync } from 'node:fs';
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
});
