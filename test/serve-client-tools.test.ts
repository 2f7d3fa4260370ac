// Client-side tools through `hermes serve` (OpenAI chat-completions semantics on a durable session), over real HTTP
// against the dev server, with the official `openai` client's runTools: the model's call of a client function ends
// the request with tool_calls, the client runs the function and sends its result back, and the durable turn goes
// on with it — streamed or not, with or without a session id, after a worker restart and through another serve.
import OpenAI from 'openai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../src/http-api/server';
import { answer, createHarness, toolResult, type Harness } from './helpers/harness';
import type { Reply } from './helpers/mock-model';

let h: Harness;
let s: RunningServe;
/** What serve logged (a failed end of a one-off session among it): shown when a test fails. */
const serveLog: string[] = [];

const profiles = () => ({ defaultName: 'default', names: ['default'] });

beforeAll(async () => {
  h = await createHarness();
  s = await startServe({ hermes: h.hermes, port: 0, profiles, log: (line) => serveLog.push(line) });
});
afterAll(async () => {
  await s?.close();
  await h?.close();
});

const weatherParams = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Gets the weather of a city', parameters: weatherParams },
};

/** get_weather as runTools takes it: the client's own function, run by the client. */
const runnableWeather = (fn: (args: { city: string }) => string) => ({
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Gets the weather of a city', parameters: weatherParams, parse: JSON.parse, function: fn },
});

/** A scripted model reply that calls these tools. */
const calls = (...c: Array<{ name: string; args: object; id: string }>): Reply => ({
  toolCalls: c.map((k) => ({ id: k.id, name: k.name, arguments: k.args })),
});

/** Waits for a conversation to complete; the failure says its last events and serve's log. */
async function ended(workflowId: string): Promise<void> {
  const status = async () => (await h.client.workflow.getHandle(workflowId).describe()).status.name;
  await expect
    .poll(status, { timeout: 20_000 })
    .toBe('COMPLETED')
    .catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await whereIs(workflowId)}`);
    });
}

/** A conversation's last events and serve's log: why it is not where a test expected it. */
async function whereIs(workflowId: string): Promise<string> {
  const events = (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const lines = events.slice(-15).map((e) => {
    const failed = e.workflowTaskFailedEventAttributes?.failure?.message;
    const type = Object.keys(e)
      .find((k) => k.endsWith('EventAttributes'))
      ?.replace(/EventAttributes$/, '');
    return `  ${String(e.eventId)} ${type ?? '?'}${failed ? `: ${failed}` : ''}`;
  });
  return `${events.length} events, the last:\n${lines.join('\n')}\nserve's log:\n${serveLog.join('\n') || '  (nothing)'}`;
}

const client = (url = s.url) => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 60_000 });

async function post(body: object, headers: Record<string, string> = {}, url = s.url): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'hermes', ...body }),
  });
  return { status: res.status, body: await res.json() };
}

describe('hermes serve: client-side tools', () => {
  it("runTools: the client's function is called by the client, its result goes back, the durable session answers", async () => {
    const session = `ct-run-${Date.now().toString(36)}`;
    writeFileSync(path.join(h.workspace, 'notes.txt'), 'agent-side notes\n');
    const before = h.mock.requests.length;
    // One step calls the agent's read_file and the client's get_weather: the agent's runs, only the client's goes out.
    h.mock.push(
      calls({ name: 'read_file', args: { path: 'notes.txt' }, id: 'r1' }, { name: 'get_weather', args: { city: 'Paris' }, id: 'w1' }),
      answer('Sunny in Paris, and the notes say agent-side notes.'),
    );
    const called: unknown[] = [];
    const final = await h.run(async () => {
      const runner = client().chat.completions.runTools(
        {
          model: 'hermes',
          messages: [{ role: 'user', content: 'What is the weather in Paris? And what do my notes say?' }],
          tools: [
            runnableWeather((args) => {
              called.push(args);
              return `sunny, 24 °C in ${args.city}`;
            }),
          ],
        },
        { headers: { 'X-Hermes-Session-Id': session } },
      );
      const content = await runner.finalContent();
      // One conversation, one turn: the session's view has it (asked while a worker answers the state query).
      const view = (await (await fetch(`${s.url}/v1/sessions/${session}`)).json()) as { state: { turn: number }; last_turn: { answer: string } };
      return { content, messages: runner.messages, view };
    });
    expect(final.view.state.turn).toBe(1);
    expect(final.view.last_turn.answer).toBe(final.content);
    expect(called).toEqual([{ city: 'Paris' }]);
    expect(final.content).toBe('Sunny in Paris, and the notes say agent-side notes.');
    // The client saw only its own call, under the model's id.
    const asked = final.messages.find((m) => m.role === 'assistant' && 'tool_calls' in m && m.tool_calls?.length) as {
      tool_calls: Array<{ id: string; function: { name: string } }>;
    };
    expect(asked.tool_calls.map((k) => [k.id, k.function.name])).toEqual([['w1', 'get_weather']]);
    // What reached the model: the client's tool offered beside the agent's; then both results, in the model's order.
    const [first, second] = h.mock.requests.slice(before);
    expect(first!.tools).toEqual(expect.arrayContaining(['get_weather', 'read_file']));
    expect(second!.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual([
      'r1',
      'w1',
    ]);
    expect(toolResult(second!.messages, 'w1')).toBe('sunny, 24 °C in Paris');
    expect(toolResult(second!.messages, 'r1')).toMatch(/agent-side notes/);
    h.mock.assertDone();
  }, 90_000);

  it('streamed runTools without a session id: tool_calls streamed as OpenAI streams them, the one-off session answers and ends', async () => {
    h.mock.push(
      calls({ name: 'get_weather', args: { city: 'Oslo, with a long name to stream in pieces: Oslo Oslo Oslo Oslo' }, id: 'w2' }),
      answer('Cold.'),
    );
    const before = h.mock.requests.length;
    const seen: string[] = [];
    const out = await h.run(async () => {
      const runner = client().chat.completions.runTools({
        model: 'hermes',
        stream: true,
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        tools: [
          runnableWeather((args) => {
            seen.push(args.city);
            return 'minus 5';
          }),
        ],
      });
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      runner.on('chunk', (c) => chunks.push(c));
      const content = await runner.finalContent();
      // Serve ends the one-off session once it has answered, with a signal that may reach the server after the answer
      // reached the client: waited for while the worker runs, as it always does outside a test.
      const session = /^hermes\.(tools-[a-z0-9]+)\./.exec(chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])[0]?.id ?? '')?.[1];
      if (session) await ended(`hermes-session-${session}`);
      return { content, chunks, messages: runner.messages };
    });
    expect(seen).toEqual(['Oslo, with a long name to stream in pieces: Oslo Oslo Oslo Oslo']);
    expect(out.content).toBe('Cold.');
    // The deltas: the call's id, type and name first, then its arguments in pieces; finish_reason tool_calls.
    const callDeltas = out.chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(callDeltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(callDeltas.length).toBeGreaterThan(2);
    expect(out.chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls', 'stop']);
    // The call's id names the one-off session, and the model got the result under its own id.
    const id = callDeltas[0]!.id!;
    const m = /^hermes\.(tools-[a-z0-9]+)\.w2$/.exec(id);
    expect(m, id).not.toBeNull();
    expect(toolResult(h.mock.requests[before + 1]!.messages, 'w2')).toBe('minus 5');
    // Answered, the one-off session ended.
    expect((await h.client.workflow.getHandle(`hermes-session-${m![1]}`).describe()).status.name).toBe('COMPLETED');
    h.mock.assertDone();
  }, 90_000);

  it('the results may come after a worker restart, through another hermes serve', async () => {
    const session = `ct-restart-${Date.now().toString(36)}`;
    h.mock.push(calls({ name: 'get_weather', args: { city: 'Rome' }, id: 'w3' }), answer('Warm in Rome.'));
    const messages: any[] = [{ role: 'user', content: 'Weather in Rome?' }];
    const first = await h.run(() => post({ messages, tools: [weatherTool] }, { 'X-Hermes-Session-Id': session }));
    expect(first.status).toBe(200);
    expect(first.body.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'w3', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }],
      },
    });
    expect(first.body.hermes).toMatchObject({ status: 'tool_calls', session_id: session });
    // The worker is gone (h.run stopped it); the conversation waits in its history. A new worker (no cached
    // workflow: it replays) and a second serve take the results.
    const other = await startServe({ hermes: h.hermes, port: 0, profiles });
    try {
      const second = await h.run(() =>
        post(
          {
            messages: [...messages, first.body.choices[0].message, { role: 'tool', tool_call_id: 'w3', content: 'warm, 30 °C' }],
            tools: [weatherTool],
          },
          { 'X-Hermes-Session-Id': session },
          other.url,
        ),
      );
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      expect(second.body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Warm in Rome.' } });
      expect(second.body.hermes).toMatchObject({ status: 'completed', turn: 1 });
    } finally {
      await other.close();
    }
    expect(toolResult(h.mock.requests.at(-1)!.messages, 'w3')).toBe('warm, 30 °C');
    h.mock.assertDone();
  }, 90_000);

  it('bad inputs get clear errors and leave the session usable', async () => {
    const session = `ct-bad-${Date.now().toString(36)}`;
    const headers = { 'X-Hermes-Session-Id': session };
    const tools = [weatherTool, { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } }];
    // A client tool named like one of the agent's: refused before anything starts.
    const taken = await post({ messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'terminal' } }] }, headers);
    expect(taken.status).toBe(400);
    expect(taken.body.error).toMatchObject({ param: 'tools[0].function.name', code: 'tool_name_taken' });
    expect((await fetch(`${s.url}/v1/sessions/${session}`)).status).toBe(404);

    h.mock.push(
      calls({ name: 'get_weather', args: { city: 'Lima' }, id: 'a1' }, { name: 'get_time', args: {}, id: 'a2' }),
      answer('Done: mild at noon.'),
    );
    await h.run(async () => {
      const user = { role: 'user', content: 'Weather and time in Lima?' };
      const first = await post({ messages: [user], tools }, headers);
      expect(first.body.choices[0].message.tool_calls.map((k: { id: string }) => k.id)).toEqual(['a1', 'a2']);
      const asked = first.body.choices[0].message;
      // The session says what it waits for, and ?wait does not wait for it.
      const view = (await (await fetch(`${s.url}/v1/sessions/${session}?wait=30`)).json()) as {
        state: { waitingFor: string; awaitedToolCalls: Array<{ id: string }> };
      };
      expect(view.state.waitingFor).toBe('tool_results');
      expect(view.state.awaitedToolCalls.map((k) => k.id)).toEqual(['a1', 'a2']);
      const withResults = (...r: Array<[string, string]>) => ({
        messages: [user, asked, ...r.map(([id, content]) => ({ role: 'tool', tool_call_id: id, content }))],
        tools,
      });
      // A new user message while the calls wait: 409 naming what is awaited.
      const early = await post({ messages: [user, { role: 'user', content: 'never mind' }], tools }, headers);
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe('tool_results_awaited');
      expect(early.body.error.message).toMatch(/a1 \(get_weather\), a2 \(get_time\)/);
      // Results for an unknown id, and results missing one call: 400, naming the ids.
      const unknown = await post(withResults(['a1', 'mild'], ['zz', 'noon']), headers);
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({ code: 'invalid_tool_results', param: 'messages' });
      expect(unknown.body.error.message).toMatch(/unknown or repeated tool call ids zz: .*awaits the results of tool calls a1/);
      const missing = await post(withResults(['a1', 'mild']), headers);
      expect(missing.status).toBe(400);
      expect(missing.body.error.message).toMatch(/results missing for tool calls a2/);
      // Without a session id, results for ids this server never handed out: 400.
      const stray = await post(withResults(['a1', 'mild'], ['a2', 'noon']));
      expect(stray.status).toBe(400);
      expect(stray.body.error.code).toBe('unknown_tool_call_id');
      // The session still waits: the right results finish the turn.
      const done = await post(withResults(['a2', 'noon'], ['a1', 'mild']), headers);
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.choices[0].message.content).toBe('Done: mild at noon.');
      // Nothing waits any more: results again are a 409.
      const again = await post(withResults(['a1', 'mild'], ['a2', 'noon']), headers);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('no_tool_calls_awaited');
    });
    // Sent to the model in the model's order, whatever order the client sent them in.
    expect(
      h.mock.requests
        .at(-1)!
        .messages.filter((m: { role: string }) => m.role === 'tool')
        .map((m: { content: string }) => m.content),
    ).toEqual(['mild', 'noon']);
    h.mock.assertDone();
  }, 90_000);

  it('an interrupt ends the wait: the calls get results that say so, and the session takes the next message', async () => {
    const session = `ct-int-${Date.now().toString(36)}`;
    const headers = { 'X-Hermes-Session-Id': session };
    h.mock.push(calls({ name: 'get_weather', args: { city: 'Kyiv' }, id: 'i1' }), answer('Next one answered.'));
    await h.run(async () => {
      const first = await post({ messages: [{ role: 'user', content: 'Weather in Kyiv?' }], tools: [weatherTool] }, headers);
      expect(first.body.choices[0].finish_reason).toBe('tool_calls');
      const stop = await fetch(`${s.url}/v1/sessions/${session}/interrupt`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: 'the client gave up' }),
      });
      expect(stop.status).toBe(200);
      const v = (await (await fetch(`${s.url}/v1/sessions/${session}?wait=30`)).json()) as { last_turn: { turn: number; status: string } };
      expect(v.last_turn).toMatchObject({ turn: 1, status: 'interrupted' });
      const next = await post({ messages: [{ role: 'user', content: 'Something else' }], tools: [weatherTool] }, headers);
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect(next.body.choices[0].message.content).toBe('Next one answered.');
    });
    // The model's context stays valid: the cut call has its result.
    expect(toolResult(h.mock.requests.at(-1)!.messages, 'i1')).toMatch(
      /^Error: the client did not return a result for this call \(cancelled by interrupt while waiting\)/,
    );
    h.mock.assertDone();
  }, 90_000);

  it('a client that never sends the results: after the idle timeout the calls get results saying so, and the turn answers', async () => {
    // A serve whose sessions have a short idle timeout: the wait for tool results lasts as long.
    const short = await startServe({ hermes: h.hermes, port: 0, profiles, defaults: { start: { idleTimeoutSec: 2 } } });
    const session = `ct-timeout-${Date.now().toString(36)}`;
    h.mock.push(calls({ name: 'get_weather', args: { city: 'Quito' }, id: 't1' }), answer('I could not get the weather.'));
    // Counted before: the follow-up model call may come (2 s after) before the first request's reply is read.
    const before = h.mock.requests.length;
    try {
      await h.run(async () => {
        const first = await post(
          { messages: [{ role: 'user', content: 'Weather in Quito?' }], tools: [weatherTool] },
          { 'X-Hermes-Session-Id': session },
          short.url,
        );
        expect(first.body.choices[0].finish_reason).toBe('tool_calls');
        await h.mock.waitForRequest(before + 2, 30_000);
        const v = (await (await fetch(`${short.url}/v1/sessions/${session}?wait=30`)).json()) as { last_turn: { answer: string } };
        expect(v.last_turn.answer).toBe('I could not get the weather.');
      });
    } finally {
      await short.close();
    }
    expect(toolResult(h.mock.requests.at(-1)!.messages, 't1')).toBe(
      'Error: the client did not return a result for this call (none came within 2 s). It may or may not have run.',
    );
    h.mock.assertDone();
  }, 90_000);

  it('tool_choice reaches the endpoint: a named function, and required', async () => {
    const session = `ct-choice-${Date.now().toString(36)}`;
    const before = h.mock.requests.length;
    h.mock.push(
      calls({ name: 'get_weather', args: { city: 'Bern' }, id: 'c1' }),
      calls({ name: 'get_weather', args: { city: 'Chur' }, id: 'c2' }),
      answer('ok'),
    );
    await h.run(async () => {
      const user = { role: 'user', content: 'Weather?' };
      const named = await post(
        { messages: [user], tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } } },
        { 'X-Hermes-Session-Id': session },
      );
      expect(named.body.choices[0].finish_reason).toBe('tool_calls');
      const asked = named.body.choices[0].message;
      const required = await post(
        { messages: [user, asked, { role: 'tool', tool_call_id: 'c1', content: 'cool' }], tools: [weatherTool], tool_choice: 'required' },
        { 'X-Hermes-Session-Id': session },
      );
      expect(required.body.choices[0].finish_reason).toBe('tool_calls');
      // tool_choice "none" (as a client says "answer now"): the client's tools are not offered.
      const none = await post(
        {
          messages: [
            user,
            asked,
            { role: 'tool', tool_call_id: 'c1', content: 'cool' },
            required.body.choices[0].message,
            { role: 'tool', tool_call_id: 'c2', content: 'cold' },
          ],
          tools: [weatherTool],
          tool_choice: 'none',
        },
        { 'X-Hermes-Session-Id': session },
      );
      expect(none.body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'ok' } });
    });
    const [a, b, c] = h.mock.requests.slice(before);
    expect(a!.body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(b!.body.tool_choice).toBe('required');
    expect(c!.body.tool_choice).toBeUndefined();
    expect(c!.tools).not.toContain('get_weather');
    h.mock.assertDone();
  }, 90_000);
});

describe('hermes serve: response_format', () => {
  const schema = { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'] };
  const format = { type: 'json_schema', json_schema: { name: 'weather', schema } };

  it('json_schema: passed to the endpoint, an answer that lacks it asked for once more, the JSON answered (streamed too)', async () => {
    const before = h.mock.requests.length;
    h.mock.push(
      answer('It is 21 degrees in Nice.'),
      answer('```json\n{"city": "Nice", "celsius": 21}\n```'),
      answer('{"city": "Nice", "celsius": 22}'),
    );
    await h.run(async () => {
      const r = await post({ messages: [{ role: 'user', content: 'Weather in Nice as JSON' }], response_format: format });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // The fence around the JSON is taken off: the client parses the content as it is.
      expect(JSON.parse(r.body.choices[0].message.content)).toEqual({ city: 'Nice', celsius: 21 });
      const streamed = await client().chat.completions.create({
        model: 'hermes',
        stream: true,
        messages: [{ role: 'user', content: 'Again as JSON' }],
        response_format: { type: 'json_schema', json_schema: { name: 'weather', schema } },
      });
      let content = '';
      for await (const c of streamed) content += c.choices[0]?.delta.content ?? '';
      expect(JSON.parse(content)).toEqual({ city: 'Nice', celsius: 22 });
    });
    const [first, nudged] = h.mock.requests.slice(before);
    expect(first!.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'weather', schema } });
    expect(nudged!.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/^Your answer must be a JSON value matching the JSON Schema "weather"/),
    });
    h.mock.assertDone();
  }, 90_000);

  it('an answer that still lacks the format after it was asked once more is a 500 naming it, never a silent prose answer', async () => {
    h.mock.push(answer('prose'), answer('still prose'));
    const r = await h.run(() => post({ messages: [{ role: 'user', content: 'JSON please' }], response_format: { type: 'json_object' } }));
    expect(r.status).toBe(500);
    expect(r.body.error).toMatchObject({ type: 'server_error', code: 'AnswerFormat' });
    expect(r.body.error.message).toMatch(/did not have the requested response_format after it was asked once more/);
    h.mock.assertDone();
  }, 60_000);
});
