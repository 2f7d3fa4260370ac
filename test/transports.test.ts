// The three transports (src/llm/transports/) against scripted servers over real HTTP: chat completions
// (helpers/mock-model.ts), the Responses API (helpers/scripted-responses.ts) and Anthropic Messages
// (helpers/scripted-messages.ts), each written from its API's reference. The model activity runs as on a worker
// (MockActivityEnvironment; the context from a fake cache): what reached the server, what the activity records
// and how failures are classified must not depend on the transport.
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContextCache } from '../src/activities/context';
import { createModelActivities } from '../src/activities/model';
import { defineProfile, loadProfiles, type ModelProfile } from '../src/llm/profiles';
import { logger } from '../src/observe/logger';
import { CONVERSATION_HEADING } from '../src/shared/texts';
import type { ChatMessage, ModelCallInput, ModelCallResult } from '../src/shared/wire';
import { MockModel } from './helpers/mock-model';
import { ScriptedMessages } from './helpers/scripted-messages';
import { ScriptedResponses } from './helpers/scripted-responses';
import type { ScriptedReply, ScriptedRequest } from './helpers/scripted-server';

type Transport = ModelProfile['transport'];

interface Server {
  baseURL: string;
  requests: Array<Pick<ScriptedRequest, 'body' | 'headers' | 'aborted'>>;
  assertDone(): void;
  close(): Promise<void>;
}

async function serve(transport: Transport, script: ScriptedReply[]): Promise<Server> {
  if (transport === 'responses') return ScriptedResponses.start(script);
  if (transport === 'anthropic') return ScriptedMessages.start(script);
  // The mock's replies take the same content / toolCalls / reasoning fields; usage in its own names.
  return MockModel.start(
    script.map((r) => {
      if (typeof r === 'function' || !('usage' in r) || !r.usage) return r as never;
      return { ...r, usage: { prompt_tokens: r.usage.input, completion_tokens: r.usage.output } };
    }),
  );
}

const SYSTEM = `You are hermes.\n\nTools: read_file, write_file.\n\n${CONVERSATION_HEADING}\nWorkspace: /tmp/ws`;

const CONTEXT: ChatMessage[] = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: 'write notes.txt, then read it' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'write_file', arguments: '{"path":"notes.txt","content":"hi"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_w', content: 'wrote 2 bytes to notes.txt' },
  { role: 'user', content: 'and be quick' },
];

// Each call's step line (info) would bury the output; HERMES_LOG_LEVEL=info shows them.
if (!process.env.HERMES_LOG_LEVEL) logger.level = 'warn';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const noQueries = { withAbortSignal: <T>(_s: AbortSignal, fn: () => Promise<T>) => fn() } as unknown as Client;

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function call(
  transport: Transport,
  script: ScriptedReply[],
  opts: {
    stream?: boolean;
    context?: ChatMessage[];
    tools?: string[];
    maxTokens?: number;
    heartbeats?: unknown[];
    onEnv?: (env: MockActivityEnvironment) => void;
    /** More of the activity's input (the client's tools, tool choice, answer format). */
    input?: Partial<ModelCallInput>;
  } = {},
): Promise<ModelCallResult> {
  server = await serve(transport, script);
  const profile = defineProfile('p', { baseURL: server.baseURL, model: 'm', transport, stream: opts.stream ?? false, maxTokens: opts.maxTokens });
  const { callModel } = createModelActivities({
    profiles: { defaultName: 'p', profiles: { p: profile } },
    contextCache: { get: () => Promise.resolve(opts.context ?? CONTEXT), noteAssistant: () => undefined } as unknown as ContextCache,
    env: { OPENAI_API_KEY: 'sk-openai-test', ANTHROPIC_API_KEY: 'sk-ant-test' },
    heartbeatMs: 5,
  });
  const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'w', runId: 'r' } }, { logger: quiet, client: noQueries });
  env.on('heartbeat', (d: unknown) => opts.heartbeats?.push(d));
  opts.onEnv?.(env);
  const input: ModelCallInput = {
    context: { version: 0, count: 1, digest: 'd' },
    tools: opts.tools ?? ['read_file', 'write_file'],
    step: 2,
    ...opts.input,
  };
  return (await env.run(callModel, input)) as ModelCallResult;
}

async function failureOf(transport: Transport, reply: ScriptedReply, stream = false): Promise<ApplicationFailure> {
  const err = await call(transport, [reply], { stream }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

const TRANSPORTS: Transport[] = ['chat', 'responses', 'anthropic'];

describe.each(TRANSPORTS)('the %s transport', (transport) => {
  describe.each([false, true])('streamed: %s', (stream) => {
    it('records a tool call as the same lean result as every transport, with usage', async () => {
      const result = await call(
        transport,
        [{ toolCalls: [{ id: 'call_r', name: 'read_file', arguments: { path: 'notes.txt' } }], usage: { input: 120, output: 7 } }],
        { stream },
      );
      expect(result.message.content).toBeNull();
      expect(result.message.tool_calls).toHaveLength(1);
      const [tc] = result.message.tool_calls!;
      expect({ ...tc, function: { ...tc!.function, arguments: JSON.parse(tc!.function.arguments) as unknown } }).toEqual({
        id: 'call_r',
        type: 'function',
        function: { name: 'read_file', arguments: { path: 'notes.txt' } },
      });
      expect(result.usage).toMatchObject({ promptTokens: 120, completionTokens: 7, totalTokens: 127 });
      expect(result.model).toBe('m');
      expect(result.toolMode).toBeUndefined();
      expect(server!.requests[0]!.body.stream === true).toBe(stream);
      server!.assertDone();
    });

    it('keeps reasoning out of the answer and records only its excerpt', async () => {
      const result = await call(transport, [{ content: 'The file says hi.', reasoning: 'The user wants the file read back.' }], { stream });
      expect(result.message).toEqual({ content: 'The file says hi.' });
      expect(result.reasoning).toEqual({ text: 'The user wants the file read back.', chars: 34 });
    });
  });

  it("offers the client's tools beside the agent's, with its tool choice and (where the API has one) its answer format", async () => {
    const schema = { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] };
    const result = await call(transport, [{ content: '{"a": 1}' }], {
      input: {
        clientTools: [{ name: 'get_weather', parameters: { type: 'object', properties: {} } }],
        toolChoice: { name: 'get_weather' },
        answerFormat: { type: 'json_schema', name: 'w', schema },
      },
    });
    const body = server!.requests[0]!.body as Record<string, any>;
    const names = (body.tools as Array<{ name?: string; function?: { name: string } }>).map((t) => t.name ?? t.function?.name);
    expect(names).toEqual(['read_file', 'write_file', 'get_weather']);
    const wanted = {
      chat: {
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        response_format: { type: 'json_schema', json_schema: { name: 'w', schema } },
      },
      responses: { tool_choice: { type: 'function', name: 'get_weather' }, text: { format: { type: 'json_schema', name: 'w', schema } } },
      anthropic: { tool_choice: { type: 'tool', name: 'get_weather' } },
    }[transport];
    expect(body).toMatchObject(wanted);
    // Whatever the endpoint was asked, the answer is checked: this one lacks the schema's field.
    expect(result.formatError).toMatch(/^it does not match the schema: answer must have required property 'b'/);
  });

  it('shows the reply as it streams in the heartbeat details', async () => {
    const heartbeats: unknown[] = [];
    await call(transport, [{ content: 'one two three four five six', wordDelayMs: 40 }], { stream: true, heartbeats });
    const live = heartbeats.map((d) => (d as { live?: { content: string } }).live?.content ?? '').filter(Boolean);
    // Words held back until the next space (a secret is never shown in part): the reply so far, growing.
    expect(live.length).toBeGreaterThan(1);
    expect(live.at(0)!.length).toBeLessThan(live.at(-1)!.length);
    expect('one two three four five six').toContain(live.at(-1)!.trim());
  });

  // The live reply is made when a heartbeat goes out, not at each piece: per piece, a reply of 25,000 pieces cost
  // ~10 s of CPU (28 s with the redactor), the square of its length.
  it('streams a 200 KB reply in 50,000 pieces in linear time, the live reply still shown', async () => {
    const heartbeats: unknown[] = [];
    const text = Array.from({ length: 50_000 }, (_, i) => `w${i % 10}x`).join(' ');
    const result = await call(transport, [{ content: text }], { stream: true, heartbeats });
    expect(result.message.content).toBe(text);
    const live = heartbeats.map((d) => (d as { live?: { content: string } }).live?.content ?? '').filter(Boolean);
    for (const shown of live) expect(text.startsWith(shown)).toBe(true);
  }, 20_000);

  it('stops reading the stream when the activity is cancelled (an interrupt)', async () => {
    const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const heartbeats: unknown[] = [];
    let env: MockActivityEnvironment | undefined;
    const outcome = call(transport, [{ content: text, wordDelayMs: 50 }], { stream: true, heartbeats, onEnv: (e) => (env = e) }).then(
      () => 'completed',
      (e: Error) => e.name,
    );
    // Cancelled while the reply streams: some of it has been shown.
    await expect.poll(() => heartbeats.some((d) => (d as { live?: { content: string } }).live?.content), { timeout: 5_000 }).toBe(true);
    env!.cancel();
    expect(await outcome).not.toBe('completed');
    // The server saw the connection close before it had written the whole reply.
    await expect.poll(() => server!.requests[0]!.aborted).toBe(true);
  });

  it('classifies a 401 as ModelAuth, not retried', async () => {
    const f = await failureOf(transport, { status: 401 });
    expect(f).toMatchObject({ type: 'ModelAuth', nonRetryable: true });
    expect(f.message).toMatch(/answered 401/);
  });

  it('classifies a 429 as RateLimited and waits as long as retry-after says', async () => {
    const f = await failureOf(transport, { status: 429, headers: { 'retry-after': '7' } });
    expect(f).toMatchObject({ type: 'RateLimited', nonRetryable: false });
    expect(f.nextRetryDelay).toBe(7_000);
  });

  it.each([500, 503])('classifies a %i as ModelUnavailable, retried', async (status) => {
    expect(await failureOf(transport, { status })).toMatchObject({ type: 'ModelUnavailable', nonRetryable: false });
  });
});

// A stream that started (200) and then reports an error event: the failure its status would have been.
describe('failures inside a stream', () => {
  it.each<Transport>(['responses', 'anthropic'])('%s: a server error is ModelUnavailable, a rate limit RateLimited', async (transport) => {
    expect(await failureOf(transport, { status: 500, inStream: true }, true)).toMatchObject({ type: 'ModelUnavailable', nonRetryable: false });
    expect(await failureOf(transport, { status: 429, inStream: true }, true)).toMatchObject({ type: 'RateLimited', nonRetryable: false });
  });

  it('anthropic: an overloaded_error event is ModelUnavailable, as a 529 is', async () => {
    expect(await failureOf('anthropic', { status: 529 })).toMatchObject({ type: 'ModelUnavailable', nonRetryable: false });
    expect(await failureOf('anthropic', { status: 529, inStream: true }, true)).toMatchObject({ type: 'ModelUnavailable' });
  });
});

describe('context overflow, in each API’s words', () => {
  it.each<[Transport, ScriptedReply]>([
    ['chat', { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } } }],
    [
      'responses',
      {
        status: 400,
        body: {
          error: {
            message: 'Your input exceeds the context window of this model.',
            type: 'invalid_request_error',
            param: 'input',
            code: 'context_length_exceeded',
          },
        },
      },
    ],
    [
      'anthropic',
      {
        status: 400,
        body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' } },
      },
    ],
  ])('%s: ContextOverflow, not retried', async (transport, reply) => {
    const f = await failureOf(transport, reply);
    expect(f).toMatchObject({ type: 'ContextOverflow', nonRetryable: true });
  });
});

describe('what reaches the Anthropic Messages API', () => {
  it('the version header, the key, max_tokens, no sampling parameters, thinking off', async () => {
    await call('anthropic', [{ content: 'done' }]);
    const { body, headers } = server!.requests[0]!;
    expect(headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect([headers['x-api-key'], headers.authorization]).toContain(headers['x-api-key'] ? 'sk-ant-test' : 'Bearer sk-ant-test');
    expect(body).toMatchObject({ model: 'm', max_tokens: 4096, thinking: { type: 'disabled' } });
    expect(body).not.toHaveProperty('temperature');
    server!.assertDone();
  });

  it('the system prompt as `system`, split before the per-conversation part, cache breakpoints on the stable prefix', async () => {
    await call('anthropic', [{ content: 'done' }], { maxTokens: 512 });
    const { body } = server!.requests[0]!;
    expect(body.max_tokens).toBe(512);
    expect(body.system).toEqual([
      { type: 'text', text: 'You are hermes.\n\nTools: read_file, write_file.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: `${CONVERSATION_HEADING}\nWorkspace: /tmp/ws`, cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(['read_file', 'write_file']);
    expect(body.tools[0]).not.toHaveProperty('cache_control');
    expect(body.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(body.tools[0].input_schema.type).toBe('object');
  });

  it('tool calls as tool_use, results as tool_result paired by id and first in the next user turn', async () => {
    await call('anthropic', [{ content: 'done' }]);
    const { body } = server!.requests[0]!;
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'write notes.txt, then read it' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_w', name: 'write_file', input: { path: 'notes.txt', content: 'hi' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_w', content: 'wrote 2 bytes to notes.txt' },
          // The last block carries the rolling breakpoint: the next step reads all of this from the cache.
          { type: 'text', text: 'and be quick', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
    server!.assertDone();
  });

  it('counts cache reads in the prompt tokens', async () => {
    const result = await call('anthropic', [{ content: 'done', usage: { input: 20, output: 3, cached: 1000 } }]);
    expect(result.usage).toMatchObject({ promptTokens: 1020, completionTokens: 3, totalTokens: 1023 });
  });
});

describe('what reaches the Responses API', () => {
  it('instructions, function_call and function_call_output items paired by call_id, tools not strict, nothing stored', async () => {
    await call('responses', [{ content: 'done' }]);
    const { body, headers } = server!.requests[0]!;
    expect(headers.authorization).toBe('Bearer sk-openai-test');
    expect(body.instructions).toBe(SYSTEM);
    expect(body.input).toEqual([
      { role: 'user', content: 'write notes.txt, then read it' },
      { type: 'function_call', call_id: 'call_w', name: 'write_file', arguments: '{"path":"notes.txt","content":"hi"}' },
      { type: 'function_call_output', call_id: 'call_w', output: 'wrote 2 bytes to notes.txt' },
      { role: 'user', content: 'and be quick' },
    ]);
    expect(body.tools.map((t: { type: string; name: string; strict: boolean }) => [t.type, t.name, t.strict])).toEqual([
      ['function', 'read_file', false],
      ['function', 'write_file', false],
    ]);
    expect(body).toMatchObject({ model: 'm', store: false, temperature: 0.3 });
    server!.assertDone();
  });
});

describe('the default profile from the environment', () => {
  it('HERMES_MODEL_TRANSPORT=anthropic reads the Anthropic SDK’s variables', () => {
    const set = loadProfiles(
      { HERMES_MODEL_TRANSPORT: 'anthropic', ANTHROPIC_BASE_URL: 'https://gw.example/anthropic', HERMES_CONFIG: '/nonexistent.json' },
      '/',
    );
    expect(set.profiles.default).toMatchObject({ transport: 'anthropic', baseURL: 'https://gw.example/anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY' });
  });

  it('defaults to chat completions; an unknown transport stops the start', () => {
    expect(loadProfiles({ HERMES_CONFIG: '/nonexistent.json' }, '/').profiles.default).toMatchObject({
      transport: 'chat',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
    expect(loadProfiles({ HERMES_MODEL_TRANSPORT: 'responses', HERMES_CONFIG: '/nonexistent.json' }, '/').profiles.default).toMatchObject({
      transport: 'responses',
      baseURL: 'https://api.openai.com/v1',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
    expect(() => loadProfiles({ HERMES_MODEL_TRANSPORT: 'bedrock' }, '/')).toThrow(
      /HERMES_MODEL_TRANSPORT: "bedrock" is not one of chat, responses, anthropic/,
    );
  });

  it('a named anthropic profile reads ANTHROPIC_API_KEY unless it names another variable', () => {
    expect(defineProfile('a', { baseURL: 'https://api.anthropic.com', model: 'claude', transport: 'anthropic' }).apiKeyEnv).toBe('ANTHROPIC_API_KEY');
    expect(defineProfile('a', { baseURL: 'https://api.anthropic.com', model: 'claude', transport: 'anthropic', apiKeyEnv: 'MY_KEY' }).apiKeyEnv).toBe(
      'MY_KEY',
    );
  });
});
