// `hermes serve` against a real dev server and worker, called with the official `openai` npm client (and plain
// fetch where a stock client would hide the details): answers streamed and not, sessions as one durable chat,
// bad requests answered in the OpenAI error shape without starting a workflow, the bearer token, no worker, and a
// client that goes away mid-turn (--interrupt-on-disconnect).
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hermes } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { startServe, type RunningServe, type ServeOptions } from '../src/http-api/server';
import { openApiDocument } from '../src/http-api/openapi';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import type { RecordedRequest } from './helpers/mock-model';
import { waitFor } from './helpers/wait';

let h: Harness;
const servers: RunningServe[] = [];

beforeAll(async () => {
  h = await createHarness([], (baseURL) => ({
    defaultName: 'default',
    profiles: {
      default: defineProfile('default', { baseURL, model: 'mock-model' }),
      fast: defineProfile('fast', { baseURL, model: 'mock-fast' }),
    },
  }));
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await h?.close();
});

async function serve(o: Partial<ServeOptions> = {}): Promise<RunningServe> {
  const s = await startServe({ hermes: h.hermes, port: 0, profiles: () => ({ defaultName: 'default', names: ['default', 'fast'] }), ...o });
  servers.push(s);
  return s;
}

const openai = (s: RunningServe, apiKey = 'unused') => new OpenAI({ baseURL: `${s.url}/v1`, apiKey, maxRetries: 0 });

/** Workflows on the harness's task queue (visibility). */
async function workflowsOnQueue(): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of h.client.workflow.list({ query: `TaskQueue = "${h.taskQueue}"` })) ids.push(w.workflowId);
  return ids;
}

const userText = (r: RecordedRequest) =>
  r.messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

describe('hermes serve', () => {
  it('rejects every bad request in the OpenAI error shape, naming the field, and starts no workflow', async () => {
    const s = await serve();
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const user = [{ role: 'user', content: 'hi' }];
    const cases: Array<{ body: unknown; headers?: Record<string, string>; status: number; param: string | null }> = [
      { body: { model: 'hermes' }, status: 400, param: 'messages' },
      { body: { model: 'hermes', messages: [] }, status: 400, param: 'messages' },
      { body: { model: 'hermes', messages: 'hi' }, status: 400, param: 'messages' },
      { body: { model: 'hermes', messages: [{ role: 'user', content: 42 }] }, status: 400, param: 'messages[0].content' },
      { body: { model: 'hermes', messages: [{ role: 'wizard', content: 'x' }] }, status: 400, param: 'messages[0].role' },
      { body: { model: 'hermes', messages: [{ role: 'assistant', content: 'x' }] }, status: 400, param: 'messages[0].role' },
      { body: { model: 'hermes', messages: [{ role: 'user', content: '   ' }] }, status: 400, param: 'messages[0].content' },
      { body: { model: 'hermes', messages: user, stream: 'yes' }, status: 400, param: 'stream' },
      { body: { model: 7, messages: user }, status: 400, param: 'model' },
      { body: { model: 'gpt-17-ultra', messages: user }, status: 400, param: 'model' },
      { body: { model: 'hermes', messages: user, n: 3 }, status: 400, param: 'n' },
      { body: { model: 'hermes', messages: user }, headers: { 'X-Hermes-Session-Id': 'a b/../c' }, status: 400, param: 'X-Hermes-Session-Id' },
      { body: { model: 'hermes', messages: user }, headers: { 'X-Hermes-Session-Id': 'x'.repeat(129) }, status: 400, param: 'X-Hermes-Session-Id' },
      { body: { model: 'hermes', messages: user, metadata: { session_id: 'semi;colon' } }, status: 400, param: 'metadata.session_id' },
      { body: '{"model": "hermes", "messages": [', status: 400, param: null },
      { body: { model: 'hermes', messages: [{ role: 'user', content: 'x'.repeat(3 * 1024 * 1024) }] }, status: 413, param: null },
    ];
    await h.run(async () => {
      for (const c of cases) {
        const res = await post(c.body, c.headers);
        const body = (await res.json()) as { error: { message: string; type: string; param: string | null; code: string | null } };
        expect({ status: res.status, param: body.error?.param }, JSON.stringify(c.body).slice(0, 120)).toEqual({ status: c.status, param: c.param });
        expect(body.error).toEqual({ message: expect.any(String), type: 'invalid_request_error', param: c.param, code: expect.any(String) });
      }
      // The stock client sees them as its BadRequestError, with the message.
      await expect(openai(s).chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
        status: 400,
        param: 'model',
      });
      // A good request after them: once it is listed, it is the only workflow on the queue.
      h.mock.push(answer('the one that ran'));
      const ok = await openai(s).chat.completions.create({ model: 'hermes', messages: [{ role: 'user', content: 'run me' }] });
      expect(ok.choices[0]!.message.content).toBe('the one that ran');
    });
    const listed = await waitFor('the good request listed', async () => ((await workflowsOnQueue()).length >= 1 ? workflowsOnQueue() : undefined));
    expect(listed).toHaveLength(1);
    expect(h.mock.requests).toHaveLength(1);
    expect(userText(h.mock.requests[0]!)).toContain('run me');
  });

  it('answers a completion without stream, with usage and finish_reason stop, on the model profile named', async () => {
    const s = await serve();
    const before = h.mock.requests.length;
    h.mock.push(toolCall('list_dir', { path: '.' }), answer('Paris is the capital of France.'));
    const r = await h.run(() =>
      openai(s).chat.completions.create({
        model: 'fast',
        messages: [
          { role: 'system', content: 'Answer in one sentence.' },
          { role: 'user', content: 'What is the capital of France?' },
        ],
      }),
    );
    expect(r.object).toBe('chat.completion');
    expect(r.id).toMatch(/^chatcmpl-/);
    expect(r.model).toBe('fast');
    expect(r.choices).toHaveLength(1);
    expect(r.choices[0]!).toMatchObject({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Paris is the capital of France.' },
    });
    expect(r.usage!.total_tokens).toBe(30); // two model calls of the mock's 10 + 5
    const calls = h.mock.requests.slice(before);
    expect(calls.map((c) => c.body.model)).toEqual(['mock-fast', 'mock-fast']);
    expect(userText(calls[0]!)).toContain('What is the capital of France?');
    expect(calls[0]!.messages.find((m) => m.role === 'system')?.content).toContain('Answer in one sentence.');
  });

  it('streams chunks in the OpenAI format: the joined content is the answer, tool steps go to reasoning_content, usage last', async () => {
    const s = await serve();
    const text = 'There is nothing in the workspace yet, so there is nothing to list: start by writing a file.';
    h.mock.push(toolCall('list_dir', { path: '.' }), { content: text, wordDelayMs: 250 });
    const chunks = await h.run(async () => {
      const stream = await openai(s).chat.completions.create({
        model: 'hermes',
        messages: [{ role: 'user', content: 'What files are there?' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const got: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const c of stream) got.push(c);
      return got;
    });
    expect(new Set(chunks.map((c) => c.object))).toEqual(new Set(['chat.completion.chunk']));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe(text);
    // Word by word as the model wrote it (after the hold), not in one piece at the end of the step.
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThanOrEqual(3);
    const reasoning = chunks.map((c) => (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '').join('');
    expect(reasoning).toContain('list_dir');
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish.map((c) => c.choices[0]!.finish_reason)).toEqual(['stop']);
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
  });

  it('keeps a session in one durable chat: two requests, one workflow, two turns; the second sends only the new message', async () => {
    const s = await serve();
    const session = `s-${Date.now().toString(36)}`;
    const before = h.mock.requests.length;
    h.mock.push(answer('Nice to meet you, Ada.'), answer('Your name is Ada.'));
    const client = openai(s);
    const headers = { 'X-Hermes-Session-Id': session };
    const [first, second] = await h.run(async () => {
      const a = await client.chat.completions.create(
        {
          model: 'hermes',
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'I am Ada.' },
          ],
        },
        { headers },
      );
      // A stock client sends the whole history again; only the last message reaches the conversation.
      const b = await client.chat.completions.create(
        {
          model: 'hermes',
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'I am Ada.' },
            { role: 'assistant', content: a.choices[0]!.message.content! },
            { role: 'user', content: 'What is my name?' },
          ],
        },
        { headers },
      );
      return [a, b];
    });
    expect(first.choices[0]!.message.content).toBe('Nice to meet you, Ada.');
    expect(second.choices[0]!.message.content).toBe('Your name is Ada.');
    const wfId = `hermes-session-${session}`;
    expect((first as unknown as { hermes: { conversation_id: string; turn: number } }).hermes).toMatchObject({ conversation_id: wfId, turn: 1 });
    expect((second as unknown as { hermes: { turn: number } }).hermes.turn).toBe(2);
    // One workflow (one run), two turns in its state; the second model call saw the first turn from the conversation.
    const runs: string[] = [];
    for await (const w of h.client.workflow.list({ query: `WorkflowId = "${wfId}"` })) runs.push(w.runId);
    expect(runs).toHaveLength(1);
    const calls = h.mock.requests.slice(before);
    expect(calls).toHaveLength(2);
    const userMessages = calls[1]!.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(userMessages.filter((t) => String(t).includes('I am Ada.'))).toHaveLength(1);
    expect(userMessages.filter((t) => String(t).includes('What is my name?'))).toHaveLength(1);
    expect(calls[1]!.messages.some((m) => m.role === 'assistant' && m.content === 'Nice to meet you, Ada.')).toBe(true);
    await h.run(async () => {
      const view = (await (await fetch(`${s.url}/v1/sessions/${session}`)).json()) as {
        conversation_id: string;
        state: { turn: number; mode: string };
        last_turn: { turn: number; answer: string };
      };
      expect(view.conversation_id).toBe(wfId);
      expect(view.state).toMatchObject({ turn: 2, mode: 'chat' });
      expect(view.last_turn).toMatchObject({ turn: 2, answer: 'Your name is Ada.' });
    });
    // A reconnecting client follows the conversation's events from an offset (server-sent, step events with ids).
    await h.run(async () => {
      const ac = new AbortController();
      const res = await fetch(`${s.url}/v1/sessions/${session}/events?from=0`, { signal: ac.signal });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = res.body!.getReader();
      let text = '';
      while (!/"type":"answer".*Your name is Ada/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      ac.abort();
      expect(text).toMatch(/^id: 0\ndata: \{/m);
      expect(text).toContain('"type":"turn.started"');
      expect(text).toMatch(/"type":"answer".*Your name is Ada/);
    });
    // An unknown session is a 404.
    const unknown = await fetch(`${s.url}/v1/sessions/never-${session}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
  });

  it('Idempotency-Key: a retry gets the same turn, the same key with another message is a 422, an invalid key a 400', async () => {
    const s = await serve();
    const session = `idem-${Date.now().toString(36)}`;
    const key = `k-${Date.now().toString(36)}`;
    const post = (content: string, headers: Record<string, string>) =>
      fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content }] }),
      });
    const body = async (res: Response) =>
      (await res.json()) as { choices?: Array<{ message: { content: string } }>; error?: { code: string; param: string } };
    h.mock.push(answer('first answer'), answer('task answer'));
    const before = h.mock.requests.length;
    await h.run(async () => {
      // In a session: the key is the send update's id.
      const first = await post('first message', { 'X-Hermes-Session-Id': session, 'Idempotency-Key': key });
      expect((await body(first)).choices![0]!.message.content).toBe('first answer');
      const retry = await post('first message', { 'X-Hermes-Session-Id': session, 'Idempotency-Key': key });
      expect((await body(retry)).choices![0]!.message.content).toBe('first answer');
      const other = await post('a different message', { 'X-Hermes-Session-Id': session, 'Idempotency-Key': key });
      expect(other.status).toBe(422);
      expect((await body(other)).error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
      // Without a session: the key names the task's workflow.
      const task = await post('task message', { 'Idempotency-Key': key });
      expect((await body(task)).choices![0]!.message.content).toBe('task answer');
      const again = await body(await post('task message', { 'Idempotency-Key': key }));
      expect(again, JSON.stringify(again)).toMatchObject({ choices: [{ message: { content: 'task answer' } }] });
      const otherTask = await post('another task', { 'Idempotency-Key': key });
      expect(otherTask.status).toBe(422);
      expect((await body(otherTask)).error!.code).toBe('idempotency_key_reused');
      // A key that cannot be used is said, not ignored: nothing starts.
      for (const bad of ['has space', 'x'.repeat(129), '../etc', '-lead']) {
        const r = await post('would run twice', { 'Idempotency-Key': bad, 'X-Hermes-Session-Id': `${session}-bad` });
        expect({ status: r.status, error: (await body(r)).error }, bad).toMatchObject({
          status: 400,
          error: { code: 'invalid_idempotency_key', param: 'Idempotency-Key' },
        });
      }
    });
    // Two model calls: the retries and the refused requests reached no model.
    expect(h.mock.requests.length - before).toBe(2);
    await expect(h.client.workflow.getHandle(`hermes-session-${session}-bad`).describe()).rejects.toThrow(/not found/i);
  });

  it('answers 409 while a turn runs in a session whose busy policy rejects', async () => {
    const s = await serve({ defaults: { busyPolicy: 'reject' } });
    const session = `busy-${Date.now().toString(36)}`;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.mock.push(async () => (await gate, answer('done at last')));
    const headers = { 'X-Hermes-Session-Id': session };
    await h.run(async () => {
      const first = openai(s).chat.completions.create({ model: 'hermes', messages: [{ role: 'user', content: 'slow one' }] }, { headers });
      await h.mock.waitForRequest(h.mock.requests.length + 1, 30_000);
      const res = await fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content: 'me too' }] }),
      });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'conflict_error', code: 'session_busy' });
      release();
      expect((await first).choices[0]!.message.content).toBe('done at last');
    });
  });

  it('requires the bearer token when one is set: 401 in the OpenAI shape without it', async () => {
    const s = await serve({ token: 'sekrit-token' });
    const res = await fetch(`${s.url}/v1/models`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({
      error: { message: expect.any(String), type: 'authentication_error', param: null, code: 'invalid_api_key' },
    });
    const post = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(post.status).toBe(401);
    await expect(openai(s, 'wrong').models.list()).rejects.toMatchObject({ status: 401 });
    const models = await openai(s, 'sekrit-token').models.list();
    expect(models.data.map((m) => m.id)).toEqual(['default', 'fast']);
  });

  it('answers 503 when no worker polls, and starts nothing', async () => {
    // A task queue no worker ever polled (DescribeTaskQueue lists a stopped worker for minutes: docs/guides/serve.md).
    const taskQueue = `${h.taskQueue}-none`;
    const hermes = await Hermes.connect({ client: h.client, taskQueue });
    const s = await serve({ hermes });
    const session = `noworker-${Date.now().toString(36)}`;
    const err = await openai(s)
      .chat.completions.create({ model: 'hermes', messages: [{ role: 'user', content: 'anyone?' }] }, { headers: { 'X-Hermes-Session-Id': session } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, code: 'no_worker', type: 'service_unavailable' });
    await expect(h.client.workflow.getHandle(`hermes-session-${session}`).describe()).rejects.toThrow(/not found/i);
    const listed: string[] = [];
    for await (const w of h.client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) listed.push(w.workflowId);
    expect(listed).toEqual([]);
  });

  it('serves its OpenAPI description, the same as docs/openapi.json', async () => {
    const s = await serve();
    const served = await (await fetch(`${s.url}/openapi.json`)).json();
    expect(served).toEqual(openApiDocument());
    expect(JSON.parse(readFileSync('docs/openapi.json', 'utf8'))).toEqual(served);
  });
});

describe('hermes serve --interrupt-on-disconnect', () => {
  it('a client that goes away mid-turn interrupts the turn with the flag; without it the turn answers', async () => {
    for (const flag of [true, false]) {
      const s = await serve({ interruptOnDisconnect: flag });
      const session = `disc-${String(flag)}-${Date.now().toString(36)}`;
      const before = h.mock.requests.length;
      // With the flag the call is cut long before its 30 s are up, however loaded the machine; without, 1 s ends it.
      h.mock.push({ content: 'the slow answer', delayMs: flag ? 30_000 : 1_000 });
      const last = await h.run(async () => {
        const gone = new AbortController();
        const res = await fetch(`${s.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Hermes-Session-Id': session },
          body: JSON.stringify({ model: 'hermes', stream: true, messages: [{ role: 'user', content: 'Take your time.' }] }),
          signal: gone.signal,
        });
        expect(res.status).toBe(200);
        await res.body!.getReader().read(); // the stream has begun
        await waitFor('the model call', () => h.mock.requests.length > before);
        gone.abort();
        const view = (await (await fetch(`${s.url}/v1/sessions/${session}?wait=30`)).json()) as { last_turn?: { status: string } };
        return view.last_turn;
      });
      expect(last, `interruptOnDisconnect: ${String(flag)}`).toMatchObject({ status: flag ? 'interrupted' : 'completed' });
    }
    h.mock.assertDone();
  }, 60_000);
});
