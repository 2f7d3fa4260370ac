// Model-side helpers without a server: text tool-call recovery, error classification, Retry-After.
import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextCache } from '../src/activities/context';
import { createModelActivities } from '../src/activities/model';
import type { ModelCallInput, ModelCallResult } from '../src/shared/wire';
import { MockModel } from './helpers/mock-model';
import { classifyModelError, retryAfterMs } from '../src/llm/errors';
import { parseToolCallsFromText } from '../src/llm/parse-tool-calls';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineProfile, fallbackChain, loadProfiles } from '../src/llm/profiles';

const apiError = (status: number, message: string, headers: Record<string, string> = {}) =>
  APIError.generate(status, { error: { message } }, message, new Headers(headers));

describe('parseToolCallsFromText', () => {
  it('reads <tool_call> tags, several per message', () => {
    const calls = parseToolCallsFromText(
      'ok <tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call> and <tool_call>{"name":"list_dir","arguments":{}}</tool_call>',
      ['read_file', 'list_dir'],
      'p',
    );
    expect(calls.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ['p_0', 'read_file', '{"path":"a"}'],
      ['p_1', 'list_dir', '{}'],
    ]);
  });

  it('reads a fenced JSON block, also OpenAI-shaped and with "parameters"', () => {
    const text =
      'I will call:\n```json\n[{"function":{"name":"write_file","arguments":"{\\"path\\":\\"x\\"}"}},{"name":"terminal","parameters":{"command":"ls"}}]\n```';
    const calls = parseToolCallsFromText(text, ['write_file', 'terminal'], 't');
    expect(calls.map((c) => [c.function.name, c.function.arguments])).toEqual([
      ['write_file', '{"path":"x"}'],
      ['terminal', '{"command":"ls"}'],
    ]);
  });

  it('ignores prose, unknown tools and broken JSON', () => {
    expect(parseToolCallsFromText('```json\n{"name":"rm_everything","arguments":{}}\n```', ['read_file'], 'x')).toEqual([]);
    expect(parseToolCallsFromText('<tool_call>{"name": "read_file",</tool_call>', ['read_file'], 'x')).toEqual([]);
    expect(parseToolCallsFromText('Here is some JSON: ```json\n{"a": 1}\n```', ['read_file'], 'x')).toEqual([]);
  });
});

describe('classifyModelError', () => {
  const cases: Array<[string, unknown, string, boolean]> = [
    ['401', apiError(401, 'bad key'), 'ModelAuth', true],
    ['403', apiError(403, 'forbidden'), 'ModelAuth', true],
    ['400', apiError(400, 'unsupported parameter'), 'ModelBadRequest', true],
    ['404', apiError(404, 'no such model'), 'ModelBadRequest', true],
    ['400 overflow', apiError(400, "This model's maximum context length is 8192 tokens"), 'ContextOverflow', true],
    [
      '400 overflow (llama.cpp)',
      apiError(400, 'request (16793 tokens) exceeds the available context size (16384 tokens), try increasing it'),
      'ContextOverflow',
      true,
    ],
    [
      '400 overflow (by error type)',
      APIError.generate(400, { error: { message: 'slot skipped', type: 'exceed_context_size_error' } }, 'slot skipped', new Headers()),
      'ContextOverflow',
      true,
    ],
    ['429', apiError(429, 'slow down'), 'RateLimited', false],
    ['500', apiError(500, 'oops'), 'ModelUnavailable', false],
    ['529', apiError(529, 'overloaded'), 'ModelUnavailable', false],
    ['timeout', new APIConnectionTimeoutError(), 'ModelTimeout', false],
    ['network', new APIConnectionError({ message: 'ECONNREFUSED' }), 'ModelNetwork', false],
  ];
  for (const [name, err, type, nonRetryable] of cases) {
    it(`${name} → ${type}`, () => {
      const f = classifyModelError(err) as ApplicationFailure;
      expect(f).toBeInstanceOf(ApplicationFailure);
      expect(f.type).toBe(type);
      expect(f.nonRetryable).toBe(nonRetryable);
    });
  }

  it('names the endpoint, the first thing to check', () => {
    const url = 'http://127.0.0.1:9/v1';
    expect((classifyModelError(new APIConnectionError({ message: 'fetch failed' }), url) as Error).message).toBe(
      `cannot reach the model endpoint ${url}: fetch failed`,
    );
    expect((classifyModelError(new APIConnectionTimeoutError(), url) as Error).message).toMatch(
      `model request to ${url} timed out (raise HERMES_MODEL_TIMEOUT`,
    );
    expect((classifyModelError(apiError(500, 'oops'), url) as Error).message).toMatch(`model endpoint ${url} answered 500`);
  });

  it('sets nextRetryDelay from Retry-After on 429', () => {
    const f = classifyModelError(apiError(429, 'slow', { 'retry-after': '7' })) as ApplicationFailure;
    expect(f.nextRetryDelay).toBe(7000);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds, milliseconds and HTTP dates, capped at 10 minutes', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500' }))).toBe(1500);
    const now = Date.parse('2026-11-29T12:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 29 Nov 2026 12:00:30 GMT' }), now)).toBe(30_000);
    expect(retryAfterMs(new Headers({ 'retry-after': '99999' }))).toBe(600_000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });
});

describe('the default profile from the environment', () => {
  it('caps replies at 4,096 tokens unless HERMES_MAX_TOKENS says otherwise, and takes HERMES_MODEL_TIMEOUT in seconds', () => {
    const env = { HERMES_CONFIG: '/nonexistent/hermes.config.json' };
    expect(loadProfiles(env).profiles.default).toMatchObject({ maxTokens: 4_096, timeoutMs: 300_000 });
    expect(loadProfiles({ ...env, HERMES_MAX_TOKENS: '512', HERMES_MODEL_TIMEOUT: '45' }).profiles.default).toMatchObject({
      maxTokens: 512,
      timeoutMs: 45_000,
    });
  });

  it('refuses settings it cannot use, naming each variable and its value, before any call is made', () => {
    const env = { HERMES_CONFIG: '/nonexistent/hermes.config.json' };
    // An Ollama address without its scheme parses as a URL of scheme "localhost:": every call would fail, retried.
    expect(() => loadProfiles({ ...env, OPENAI_BASE_URL: 'localhost:11434/v1' })).toThrow(
      'the model settings from the environment are not usable: OPENAI_BASE_URL="localhost:11434/v1": must be an http:// or https:// URL, e.g. http://localhost:11434/v1',
    );
    expect(() => loadProfiles({ ...env, OPENAI_BASE_URL: '', HERMES_MAX_TOKENS: 'lots' })).toThrow(
      /OPENAI_BASE_URL="": must be an http:\/\/ or https:\/\/ URL.*; HERMES_MAX_TOKENS="lots": /,
    );
    expect(() => loadProfiles({ ...env, HERMES_MODEL_TRANSPORT: 'anthropic', ANTHROPIC_BASE_URL: 'ftp://example.com' })).toThrow(
      /ANTHROPIC_BASE_URL="ftp:\/\/example.com": must be an http/,
    );
    for (const ok of ['http://localhost:11434/v1', 'https://api.openai.com/v1', 'http://[::1]:8080/v1']) {
      expect(loadProfiles({ ...env, OPENAI_BASE_URL: ok }).profiles.default!.baseURL).toBe(ok);
    }
  });
});

describe('tool-call modes and fallback chains in profiles', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-profiles-'));
  const config = (profiles: object) => {
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ profiles }));
    return { HERMES_CONFIG: file };
  };

  it('takes HERMES_TOOL_CALL_MODE for the default profile (auto unless set) and rejects other values', () => {
    const env = { HERMES_CONFIG: '/nonexistent/hermes.config.json' };
    expect(loadProfiles(env).profiles.default!.toolCallMode).toBe('auto');
    expect(loadProfiles({ ...env, HERMES_TOOL_CALL_MODE: 'text' }).profiles.default!.toolCallMode).toBe('text');
    expect(() => loadProfiles({ ...env, HERMES_TOOL_CALL_MODE: 'smoke-signals' })).toThrow(/HERMES_TOOL_CALL_MODE="smoke-signals": /);
  });

  it('builds the chain from a profile’s fallbacks, then the run’s fallbackModel; unknown fallbacks are a config error', () => {
    const set = loadProfiles(
      config({
        a: { baseURL: 'http://x/v1', model: 'a', fallbacks: ['b', 'c'], toolCallMode: 'native' },
        b: { baseURL: 'http://x/v1', model: 'b' },
        c: { baseURL: 'http://x/v1', model: 'c' },
      }),
    );
    expect(set.profiles.a!.toolCallMode).toBe('native');
    expect(fallbackChain(set, 'a')).toEqual(['a', 'b', 'c']);
    expect(fallbackChain(set, 'a', 'default')).toEqual(['a', 'b', 'c', 'default']);
    expect(fallbackChain(set, 'a', 'b')).toEqual(['a', 'b', 'c']);
    expect(fallbackChain(set, undefined, 'a')).toEqual(['default', 'a']);
    expect(() => loadProfiles(config({ a: { baseURL: 'http://x/v1', model: 'a', fallbacks: ['nope'] } }))).toThrow(
      /profile "a" names undefined fallback profile\(s\): nope/,
    );
  });
});

describe('model HTTP client', () => {
  const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  const noQueries = { withAbortSignal: <T>(_s: AbortSignal, fn: () => Promise<T>) => fn() } as unknown as Client;
  let slow: MockModel;
  beforeAll(async () => {
    // The first request is the control (plain fetch), the second the model activity's call.
    slow = await MockModel.start([
      { content: 'control', delayMs: 3_000 },
      { content: 'late but in time', delayMs: 3_000 },
    ]);
  });
  afterAll(() => slow.close());

  it("lifts undici's 300 s header and body limits past the profile's timeout", async () => {
    const { modelDispatcherOptions } = await import('../src/llm/http');
    // Node's fetch alone gives up at 300 s; a 600 s profile must get 600 s (plus the margin).
    expect(modelDispatcherOptions(600_000).headersTimeout).toBeGreaterThan(600_000);
    expect(modelDispatcherOptions(600_000).bodyTimeout).toBeGreaterThan(600_000);
  });

  // Undici's own limits apply to every fetch that does not bring its dispatcher: here they are set to 300 ms, a
  // thousandth of undici's 300 s default, and the reply takes 3 s, under a sixth of the profile's timeout (undici
  // checks its timeouts on a ~0.5 s tick, and a loaded machine's timers run late: a 1 s reply once came first). Only
  // the model activity's profile-bound fetch (activities/model.ts → llm/http.ts) gets the reply; a client built
  // without it times out on its headers, as every call past 300 s did before.
  it("sends the model activity's requests through the profile-bound fetch, not undici's global limits", async () => {
    const { callModel } = createModelActivities({
      profiles: { defaultName: 'slow', profiles: { slow: defineProfile('slow', { baseURL: slow.baseURL, model: 'm', timeoutMs: 20_000 }) } },
      contextCache: { get: () => Promise.resolve([{ role: 'user', content: 'hi' }]), noteAssistant: () => undefined } as unknown as ContextCache,
    });
    const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'w', runId: 'r' } }, { logger: quiet, client: noQueries });
    // The context comes from the fake cache: the activity's client is never asked (no context query, no tools).
    const input: ModelCallInput = { context: { version: 0, count: 1, digest: 'd' }, tools: [], step: 1 };
    const previous = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ headersTimeout: 300, bodyTimeout: 300 }));
    try {
      const plain = await fetch(`${slow.baseURL}/chat/completions`, { method: 'POST', body: '{}' }).then(
        () => 'answered',
        (e: Error) => String((e.cause as Error | undefined)?.name ?? e.name),
      );
      expect(plain).toBe('HeadersTimeoutError'); // the control: the limits bind a fetch without its own dispatcher
      const result = (await env.run(callModel, input)) as ModelCallResult;
      expect(result.message.content).toBe('late but in time');
    } finally {
      setGlobalDispatcher(previous);
    }
  });
});
