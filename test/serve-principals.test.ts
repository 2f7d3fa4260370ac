// `hermes serve` with principals (a tokens file: each client its own token) on a real dev server and worker, called
// with the official `openai` client and fetch: another principal's session is a 404 on every route, its
// conversations are not found by session_search nor read by session_view, its memory and skills are not recalled.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../src/http-api/server';
import type { ConversationState, TurnResult } from '../src/shared/contract';
import { searchSessions } from '../src/sessions/search';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import type { RecordedRequest } from './helpers/mock-model';
import { waitFor } from './helpers/wait';

const WORD = 'quokkaberry';
const SKILL = `---\nname: harvest-notes\ndescription: How the ${WORD} harvest is planned. Use for harvest questions.\n---\n# Harvest\nAsk the farm.\n`;
const alice = { name: 'alice', token: 'alice-0123456789abcdef0123' };
const bob = { name: 'bob', token: 'bob-0123456789abcdef012345' };

let h: Harness;
let s: RunningServe;
beforeAll(async () => {
  h = await createHarness();
  s = await startServe({ hermes: h.hermes, port: 0, principals: [alice, bob], profiles: () => ({ defaultName: 'default', names: ['default'] }) });
});
afterAll(async () => {
  await s?.close();
  await h?.close();
});

const client = (p: { token: string }) => new OpenAI({ baseURL: `${s.url}/v1`, apiKey: p.token, maxRetries: 0 });
const call = (p: { token: string }, path: string, body?: unknown) =>
  fetch(`${s.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${p.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const system = (r: RecordedRequest) => String(r.messages.find((m) => m.role === 'system')?.content ?? '');
const resultOf = (reqs: RecordedRequest[], id: string) => reqs.map((r) => toolResult(r.messages, id)).find((t) => t !== undefined) ?? '';
type View = { state: ConversationState | null; last_turn: TurnResult | null };

describe('hermes serve with principals', () => {
  it("keeps each principal's sessions, tasks, memory, skills and search scope its own", async () => {
    const session = `s-${Date.now().toString(36)}`;
    const headers = { headers: { 'X-Hermes-Session-Id': session } };
    const user = (content: string) => [{ role: 'user' as const, content }];
    await h.run(async () => {
      // No token, or one that is nobody's: 401.
      expect((await fetch(`${s.url}/v1/models`)).status).toBe(401);
      expect((await call({ token: 'x'.repeat(26) }, '/v1/models')).status).toBe(401);

      // Alice: a task (with an Idempotency-Key), then a session that saves a memory and asks to save a skill.
      h.mock.push(answer(`The ${WORD} harvest starts in May.`));
      const task = await client(alice).chat.completions.create(
        { model: 'hermes', messages: user(`When is the ${WORD} harvest?`) },
        { headers: { 'Idempotency-Key': 'plan-1' } },
      );
      const taskId = (task as unknown as { hermes: { conversation_id: string } }).hermes.conversation_id;
      expect(taskId).toBe('hermes-request-alice/plan-1');
      h.mock.push(toolCall('memory', { action: 'add', store: 'notes', text: `The codeword is ${WORD}` }, 'm1'), answer('Saved.'));
      await client(alice).chat.completions.create({ model: 'hermes', messages: user(`Remember the codeword ${WORD}.`) }, headers);
      h.mock.push(toolCall('skill_manage', { action: 'create', name: 'harvest-notes', content: SKILL }, 'k1'), answer('Skill saved.'));
      const asking = client(alice)
        .chat.completions.create({ model: 'hermes', messages: user('Save a harvest skill.') }, headers)
        .catch(() => undefined);
      const pending = await waitFor("the approval asked in alice's session", async () => {
        const v = (await (await call(alice, `/v1/sessions/${session}`)).json()) as View;
        return v.state?.pendingApprovals[0];
      });

      // Bob: every route of alice's session is a 404, as for a session that does not exist.
      const p = `/v1/sessions/${session}`;
      for (const [path, body] of [
        [p, undefined],
        [`${p}?wait=1`, undefined],
        [`${p}/events`, undefined],
        [`${p}/approve`, { call_id: pending.callId, decision: 'approve' }],
        [`${p}/interrupt`, {}],
        [`${p}/answer`, { text: 'yes' }],
      ] as const) {
        const res = await call(bob, path, body);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
      }
      // Bob's approve did not reach it: still pending until alice decides.
      const still = (await (await call(alice, p)).json()) as View;
      expect(still.state?.pendingApprovals.map((a) => a.callId)).toEqual([pending.callId]);
      expect((await call(alice, `${p}/approve`, { call_id: pending.callId, decision: 'approve' })).status).toBe(200);
      await waitFor("alice's skill turn done", async () => {
        const v = (await (await call(alice, p)).json()) as View;
        return v.last_turn?.answer === 'Skill saved.' && v.state?.status !== 'running';
      });
      await asking;
      const aliceTurns = ((await (await call(alice, p)).json()) as View).state!.turn;

      // Bob may use the same session id and Idempotency-Key: they are his own.
      h.mock.push(answer('A task of my own.'));
      const bobTask = await client(bob).chat.completions.create(
        { model: 'hermes', messages: user('Something else') },
        { headers: { 'Idempotency-Key': 'plan-1' } },
      );
      expect(bobTask.choices[0]!.message.content).toBe('A task of my own.');

      // Wait until alice's task is in the index (any scope), so a search that does not find it from bob's conversation means the scope.
      await waitFor(
        "alice's task in the index",
        async () => (await searchSessions(h.client, WORD, { taskQueue: h.taskQueue })).hits.some((x) => x.id === taskId),
        30_000,
      );
      const fromBob = h.mock.requests.length;
      h.mock.push(
        toolCall('session_search', { query: WORD, running: true }, 'b1'),
        toolCall('session_view', { id: taskId }, 'b2'),
        toolCall('memory', { action: 'read', store: 'notes' }, 'b3'),
        answer('I do not know any codeword.'),
      );
      const b = await client(bob).chat.completions.create({ model: 'hermes', messages: user('What is the codeword?') }, headers);
      expect((b as unknown as { hermes: { conversation_id: string } }).hermes.conversation_id).toBe(`hermes-session-bob/${session}`);
      const bobReqs = h.mock.requests.slice(fromBob);
      expect(system(bobReqs[0]!)).not.toContain(WORD); // neither alice's memory nor her skill
      expect(system(bobReqs[0]!)).toContain('memory-context scope="principal:bob"');
      expect(JSON.stringify(bobReqs[0]!.messages)).not.toContain('Remember the codeword');
      expect(resultOf(bobReqs, 'b1')).not.toContain(taskId);
      expect(resultOf(bobReqs, 'b1')).not.toContain('hermes-session-alice');
      expect(resultOf(bobReqs, 'b1')).toMatch(/^No finished or running conversations of scope "principal:bob" match/);
      expect(resultOf(bobReqs, 'b1')).not.toMatch(/harvest|codeword/); // no snippet either
      expect(resultOf(bobReqs, 'b2')).toContain(`no conversation ${taskId}`);
      expect(resultOf(bobReqs, 'b2')).not.toContain('May');
      expect(resultOf(bobReqs, 'b3')).not.toContain(WORD);
      // Alice's session got no turn from bob.
      expect(((await (await call(alice, p)).json()) as View).state!.turn).toBe(aliceTurns);

      // Alice's own conversation finds and reads them, and recalls her memory and her skill.
      const fromAlice = h.mock.requests.length;
      h.mock.push(toolCall('session_search', { query: WORD, running: true }, 'a1'), toolCall('session_view', { id: taskId }, 'a2'), answer('May.'));
      await client(alice).chat.completions.create({ model: 'hermes', messages: user('When was the harvest again?') });
      const aliceReqs = h.mock.requests.slice(fromAlice);
      expect(system(aliceReqs[0]!)).toContain(`The codeword is ${WORD}`);
      expect(system(aliceReqs[0]!)).toContain('harvest-notes');
      expect(resultOf(aliceReqs, 'a1')).toContain(taskId);
      expect(resultOf(aliceReqs, 'a2')).toContain(`The ${WORD} harvest starts in May.`);
    });
    expect(h.mock.errors).toEqual([]);
  }, 120_000);
});
