import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { MockModel } from './helpers/mock-model';

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: { name: 'terminal', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
  },
];

describe('MockModel', () => {
  let mock: MockModel | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  function client(m: MockModel): OpenAI {
    return new OpenAI({ baseURL: m.baseURL, apiKey: 'test', maxRetries: 0 });
  }

  it('serves a tool-call round trip in the exact OpenAI shape', async () => {
    mock = await MockModel.start([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'a.txt' } },
          { name: 'terminal', arguments: '{"command":"ls"}' },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      },
      { content: 'done' },
    ]);
    const openai = client(mock);

    const first = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'read a.txt' }],
      tools,
    });
    expect(first.object).toBe('chat.completion');
    expect(first.model).toBe('gpt-test');
    expect(typeof first.id).toBe('string');
    expect(typeof first.created).toBe('number');
    const choice = first.choices[0];
    expect(choice.index).toBe(0);
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
      { id: 'call_2', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } },
    ]);
    expect(first.usage).toEqual({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 });

    const calls = choice.message.tool_calls!.filter((c) => c.type === 'function');
    const second = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'read a.txt' },
        { role: 'assistant', content: null, tool_calls: calls },
        ...calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: `result of ${c.function.name}` })),
      ],
      tools,
    });
    expect(second.choices[0].message.content).toBe('done');
    expect(second.choices[0].message.tool_calls).toBeUndefined();
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });

    expect(mock.requests).toHaveLength(2);
    expect(mock.requests[0].tools).toEqual(['read_file', 'terminal']);
    expect(mock.requests[0].messages).toEqual([{ role: 'user', content: 'read a.txt' }]);
    expect(mock.requests[0].headers.authorization).toBe('Bearer test');
    expect(mock.requests[1].messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(mock.requests[1].messages[2].tool_call_id).toBe('call_1');
    expect(mock.requests[1].at).toBeGreaterThanOrEqual(mock.requests[0].at);
    mock.assertDone();
  });

  it('takes reply functions, push() and serves /v1/models', async () => {
    mock = await MockModel.start();
    mock.push((req) => ({ content: `you said ${req.messages.at(-1).content}` }));
    const openai = client(mock);
    const r = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.choices[0].message.content).toBe('you said hi');
    expect(mock.requests[0].tools).toBeUndefined();
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toContain('mock-model');
    mock.assertDone();
  });

  it('answers scripted HTTP errors with headers visible to the client', async () => {
    mock = await MockModel.start([
      { status: 429, headers: { 'Retry-After': '7' } },
      { status: 401, body: { error: { message: 'bad key', type: 'invalid_request_error', code: 'invalid_api_key' } } },
    ]);
    const openai = client(mock);
    const messages = [{ role: 'user' as const, content: 'x' }];

    const e1 = await openai.chat.completions.create({ model: 'm', messages }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(OpenAI.RateLimitError);
    const rate = e1 as InstanceType<typeof OpenAI.APIError>;
    expect(rate.status).toBe(429);
    expect(rate.headers?.get('retry-after')).toBe('7');
    expect(rate.message).toContain('mock error 429');
    expect(rate.type).toBe('server_error');

    const e2 = await openai.chat.completions.create({ model: 'm', messages }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((e2 as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
    mock.assertDone();
  });

  it('records a request beyond the script as an error and answers 400', async () => {
    mock = await MockModel.start([{ content: 'only one' }]);
    const openai = client(mock);
    const messages = [{ role: 'user' as const, content: 'x' }];
    await openai.chat.completions.create({ model: 'm', messages });
    const err = await openai.chat.completions.create({ model: 'm', messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toContain('mock: unexpected request #2 beyond the script of 1');
    expect(mock.errors).toEqual(['unexpected request #2 beyond the script of 1']);
    expect(() => mock!.assertDone()).toThrow(/unexpected request #2/);
  });

  it('assertDone reports unused replies', async () => {
    mock = await MockModel.start([{ content: 'a' }, { content: 'b' }]);
    await client(mock).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(() => mock!.assertDone()).toThrow(/1 scripted reply unused/);
  });

  it('records a client abort during delayMs without failing', async () => {
    const delayMs = 20_000;
    mock = await MockModel.start([{ content: 'slow', delayMs }, { content: 'fast' }]);
    const openai = client(mock);
    const ac = new AbortController();
    const started = Date.now();
    const pending = openai.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, { signal: ac.signal })
      .catch((e: unknown) => e);
    await mock.waitForRequest(1);
    ac.abort();
    const err = await pending;
    expect(err).toBeInstanceOf(OpenAI.APIUserAbortError);
    expect(Date.now() - started).toBeLessThan(delayMs / 4); // ended by the abort, not by the delay
    await expect.poll(() => mock!.requests[0].aborted).toBe(true);

    // the server keeps working after an abort
    const r = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'y' }] });
    expect(r.choices[0].message.content).toBe('fast');
    expect(mock.requests[1].aborted).toBeUndefined();
    mock.assertDone();
  });
});
