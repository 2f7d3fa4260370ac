// hermes serve's pure parts: the request checks and what a streamed turn shows of the events (src/http-api/).
import { describe, expect, it } from 'vitest';
import { isLoopback } from '../src/cli/http-api';
import { hostName, normalizeOrigin } from '../src/http-api/browser-guard';
import { parseChatRequest, sessionWorkflowId, taskPrompt } from '../src/http-api/request';
import { currentMessage } from '../src/shared/texts';
import { trimTrailingSlashes } from '../src/shared/http-server';
import { echoedInstructions } from '../src/workflows/rules/echo-check';
import { TurnStream, type ChunkDelta } from '../src/http-api/turn-stream';
import type { ConversationEvent } from '../src/shared/events';
import { checkAnswer } from '../src/llm/answer-format';
import { oneOffResults, pauseDeltas } from '../src/http-api/client-calls';
import { ZERO_USAGE } from '../src/workflows/rules/usage';

const profiles = { defaultName: 'default', names: ['default', 'fast'] };
const user = [{ role: 'user', content: 'hi' }];

describe('parseChatRequest', () => {
  it('maps hermes, default and no model to the default profile; a profile name to itself', () => {
    expect(parseChatRequest({ messages: user }, {}, profiles)).toMatchObject({ model: 'default', last: 'hi' });
    expect(parseChatRequest({ model: 'hermes', messages: user }, {}, profiles).profile).toBeUndefined();
    expect(parseChatRequest({ model: 'fast', messages: user }, {}, profiles)).toMatchObject({ model: 'fast', profile: 'fast' });
  });

  it('takes the session from the header first, then metadata.session_id', () => {
    expect(parseChatRequest({ messages: user, metadata: { session_id: 'body-1' } }, {}, profiles).sessionId).toBe('body-1');
    expect(parseChatRequest({ messages: user, metadata: { session_id: 'body-1' } }, { 'x-hermes-session-id': 'head-1' }, profiles).sessionId).toBe(
      'head-1',
    );
    expect(sessionWorkflowId('telegram:42')).toBe('hermes-session-telegram:42');
    for (const bad of ['', '-x', 'a/b', 'a b', 'é', 'x'.repeat(129), '..']) {
      expect(() => parseChatRequest({ messages: user }, { 'x-hermes-session-id': bad }, profiles), bad).toThrow(/not a session id/);
    }
  });

  it('splits system messages, earlier messages and the last user message; text parts are joined', () => {
    const r = parseChatRequest(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'one' },
          { role: 'assistant', content: null },
          { role: 'assistant', content: 'two' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'thr' },
              { type: 'text', text: 'ee' },
            ],
          },
        ],
        stream: true,
        stream_options: { include_usage: true },
      },
      {},
      profiles,
    );
    expect(r).toMatchObject({ system: 'Be brief.', last: 'three', stream: true, includeUsage: true });
    expect(r.earlier.map((m) => m.text)).toEqual(['one', '', 'two']);
    expect(taskPrompt(r)).toBe(
      'The conversation so far, before the current message:\n\nUser: one\n\nAssistant: two\n\nThe current message:\n\nthree',
    );
    expect(taskPrompt(parseChatRequest({ messages: user }, {}, profiles))).toBe('hi');
  });

  it('a resent history: an answer that repeats an earlier turn is held against the current message only', () => {
    const said = 'The capital of France is Paris, a city on the Seine.';
    const r = parseChatRequest(
      {
        messages: [
          { role: 'user', content: 'Capital of France?' },
          { role: 'assistant', content: said },
          { role: 'user', content: 'Say that again.' },
        ],
      },
      {},
      profiles,
    );
    const prompt = taskPrompt(r);
    expect(currentMessage(prompt)).toBe('Say that again.');
    expect(currentMessage('just a task')).toBe('just a task');
    // Against the whole prompt the repeated answer would be "the task handed back" (the run ended stopped_repeating).
    expect(echoedInstructions(said, prompt)).toMatch(/\(the task\)$/);
    expect(echoedInstructions(said, currentMessage(prompt))).toBeUndefined();
  });

  it("reads client tools, tool_choice and response_format into the turn's offer", () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Gets it', parameters: { type: 'object', properties: {} } } }];
    expect(parseChatRequest({ messages: user, tools }, {}, profiles).offer).toEqual({
      tools: [{ name: 'get_weather', description: 'Gets it', parameters: { type: 'object', properties: {} } }],
    });
    const named = parseChatRequest({ messages: user, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }, {}, profiles);
    expect(named.offer?.toolChoice).toEqual({ name: 'get_weather' });
    expect(parseChatRequest({ messages: user, tools, tool_choice: 'required' }, {}, profiles).offer?.toolChoice).toBe('required');
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    expect(
      parseChatRequest({ messages: user, response_format: { type: 'json_schema', json_schema: { name: 'w', schema } } }, {}, profiles).offer,
    ).toEqual({
      responseFormat: { type: 'json_schema', name: 'w', schema },
    });
    // What asks for nothing offers nothing: no tools, tools declined, plain text.
    for (const extra of [{ tools: [] }, { tools, tool_choice: 'none' }, { response_format: { type: 'text' } }, { tools: null }]) {
      expect(parseChatRequest({ messages: user, ...extra }, {}, profiles).offer, JSON.stringify(extra)).toBeUndefined();
    }
  });

  it('refuses client tool fields it cannot carry out, naming the field', () => {
    const tool = (name: unknown) => ({ type: 'function', function: { name } });
    const bad: Array<[object, string]> = [
      [{ tools: [tool('read_file')] }, 'tools[0].function.name'],
      [{ tools: [tool('a b')] }, 'tools[0].function.name'],
      [{ tools: [tool('x'), tool('x')] }, 'tools[1].function.name'],
      [{ tools: [{ type: 'retrieval' }] }, 'tools[0].type'],
      [{ tools: [tool('x')], tool_choice: { type: 'function', function: { name: 'y' } } }, 'tool_choice'],
      [{ tool_choice: 'required' }, 'tool_choice'],
      [{ functions: [{ name: 'x' }] }, 'functions'],
      [{ tools: [tool('x')], parallel_tool_calls: false }, 'parallel_tool_calls'],
      [{ response_format: 'json' }, 'response_format'],
      [{ response_format: { type: 'xml' } }, 'response_format.type'],
      [{ response_format: { type: 'json_schema', json_schema: { name: 'w' } } }, 'response_format.json_schema.schema'],
      [{ response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'nonsense' } } } }, 'response_format.json_schema.schema'],
    ];
    for (const [extra, param] of bad) {
      expect(() => parseChatRequest({ messages: user, ...extra }, {}, profiles), JSON.stringify(extra)).toThrow(
        expect.objectContaining({ param, status: 400 }),
      );
    }
  });

  it('takes trailing tool messages as the results of the calls a turn waits on', () => {
    const messages = [
      ...user,
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '42' },
      { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: '43' }] },
    ];
    const r = parseChatRequest({ messages }, {}, profiles);
    expect(r.results).toEqual([
      { callId: 'c1', content: '42' },
      { callId: 'c2', content: '43' },
    ]);
    expect(r.last).toBe('');
    expect(() => parseChatRequest({ messages: [...user, { role: 'tool', content: 'x' }] }, {}, profiles)).toThrow(
      expect.objectContaining({ param: 'messages[1].tool_call_id' }),
    );
    expect(() => parseChatRequest({ messages: [...user, { role: 'assistant', content: 'x' }] }, {}, profiles)).toThrow(/the last message must be/);
  });

  it('rejects image parts, naming the part', () => {
    expect(() => parseChatRequest({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] }, {}, profiles)).toThrow(
      expect.objectContaining({ param: 'messages[0].content[0].type', status: 400 }),
    );
  });
});

describe('isLoopback', () => {
  it('knows loopback binds from the others', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopback(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.4', 'example.com', '']) expect(isLoopback(h), h).toBe(false);
  });
});

describe('the browser boundary', () => {
  it('takes a configured origin only in the form a browser sends it', () => {
    expect(normalizeOrigin('http://LocalHost:3000')).toBe('http://localhost:3000');
    expect(normalizeOrigin('https://chat.example/')).toBe('https://chat.example');
    for (const bad of ['*', 'null', 'localhost:3000', 'http://x.example/path', 'file:///tmp', 'ftp://x.example'])
      expect(() => normalizeOrigin(bad), bad).toThrow(/not an origin/);
  });

  it('reads the host name of a Host header without its port', () => {
    expect(hostName('attacker.example:8642')).toBe('attacker.example');
    expect(hostName('LOCALHOST')).toBe('localhost');
    expect(hostName('[::1]:8642')).toBe('::1');
    expect(hostName('127.0.0.1')).toBe('127.0.0.1');
  });
});

const base = { conversationId: 'c', runId: 'r', offset: 0 };
const ev = (e: Record<string, unknown>, at = 0): ConversationEvent => ({ ...base, at, ...e }) as unknown as ConversationEvent;
const delta = (step: number, text: string, at = 0, attempt = 1) => ev({ type: 'delta', step, attempt, channel: 'answer', text }, at);
const joined = (ds: ChunkDelta[], key: 'content' | 'reasoning_content') => ds.map((d) => d[key] ?? '').join('');

function run(stream: TurnStream, events: ConversationEvent[], answer?: string): ChunkDelta[] {
  const out = events.flatMap((e) => stream.onEvent(e));
  return answer === undefined ? out : [...out, ...stream.finish(answer)];
}

describe('TurnStream', () => {
  it('holds a step back, then streams it word by word once it has run long enough with no tool call: content = answer', () => {
    const t = new TurnStream({ holdMs: 1000, holdChars: 200 });
    const first = run(t, [delta(1, 'The ', 0), delta(1, 'answer ', 400)]);
    expect(joined(first, 'content')).toBe('');
    const more = run(t, [delta(1, 'is ', 1100), delta(1, '42.', 1300)]);
    expect(more.map((d) => d.content)).toEqual(['The answer is ', '42.']);
    const end = run(
      t,
      [
        ev({ type: 'model.finished', step: 1, kind: 'answer', model: 'm', usage: {} }),
        ev({ type: 'answer', text: 'The answer is 42.', status: 'completed' }),
      ],
      'The answer is 42.',
    );
    expect(joined([...first, ...more, ...end], 'content')).toBe('The answer is 42.');
  });

  it('sends the text of a step that calls tools to reasoning_content, never to content', () => {
    const t = new TurnStream();
    const out = run(
      t,
      [
        delta(1, 'Let me look. ', 0),
        ev({ type: 'tool_call.forming', step: 1, attempt: 1, index: 0, name: 'list_dir', arguments: '{' }),
        ev({ type: 'model.finished', step: 1, kind: 'tools', model: 'm', usage: {} }),
        ev({ type: 'tool.started', callId: 'a', name: 'list_dir', summary: '.' }),
        ev({ type: 'tool.finished', callId: 'a', name: 'list_dir', summary: '.', outcome: 'ok', durationMs: 120 }),
        delta(2, 'Empty.', 5000),
        ev({ type: 'model.finished', step: 2, kind: 'answer', model: 'm', usage: {} }),
      ],
      'Empty.',
    );
    expect(joined(out, 'content')).toBe('Empty.');
    expect(joined(out, 'reasoning_content')).toContain('Let me look. ');
    expect(joined(out, 'reasoning_content')).toContain('[tool] list_dir ok in 0.1 s');
  });

  it('streams only what is new when a retried attempt writes the same text again', () => {
    const t = new TurnStream({ holdChars: 5 });
    const out = run(
      t,
      [
        delta(1, 'Hello there', 0),
        ev({ type: 'attempt.restarted', step: 1, attempt: 2, reason: 'worker lost' }),
        delta(1, 'Hello', 10, 2),
        delta(1, ' there, friend.', 20, 2),
        ev({ type: 'model.finished', step: 1, kind: 'answer', model: 'm', usage: {} }),
      ],
      'Hello there, friend.',
    );
    expect(joined(out, 'content')).toBe('Hello there, friend.');
    expect(joined(out, 'reasoning_content')).toContain('attempt 2 restarts model step 1');
  });

  it('drops what a failed attempt held back; a retry that writes something else after a release is said, and the answer follows', () => {
    const held = new TurnStream({ holdChars: 100 });
    const a = run(held, [delta(1, 'Draft', 0), ev({ type: 'attempt.restarted', step: 1, attempt: 2 }), delta(1, 'Final.', 10, 2)], 'Final.');
    expect(joined(a, 'content')).toBe('Final.');
    const released = new TurnStream({ holdChars: 3 });
    const b = run(released, [delta(1, 'Draft', 0), ev({ type: 'attempt.restarted', step: 1, attempt: 2 }), delta(1, 'Other.', 10, 2)], 'Other.');
    expect(joined(b, 'content')).toBe('Draft\n\nOther.');
    expect(joined(b, 'reasoning_content')).toContain('different reply');
  });

  it("skips a chat's earlier turns: it starts at the turn.started of its own text", () => {
    const t = new TurnStream({ text: 'mine', holdChars: 1 });
    const out = run(
      t,
      [
        ev({ type: 'turn.started', turn: 1, text: 'theirs' }),
        ev({ type: 'delta', turn: 1, step: 1, attempt: 1, channel: 'answer', text: 'not mine' }),
        ev({ type: 'answer', turn: 1, text: 'not mine', status: 'completed' }),
        ev({ type: 'turn.started', turn: 2, text: 'mine' }),
        ev({ type: 'delta', turn: 2, step: 2, attempt: 1, channel: 'answer', text: 'yes' }),
      ],
      'yes',
    );
    expect(joined(out, 'content')).toBe('yes');
    expect(t.answered).toBe(false);
  });
});

describe('client tools: the answer format and the one-off call ids', () => {
  const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

  it('checks an answer against json_object and json_schema, taking a code fence off', () => {
    expect(checkAnswer('{"n": 1}', { type: 'json_object' })).toEqual({ text: '{"n": 1}' });
    expect(checkAnswer('```json\n{"n": 1}\n```', { type: 'json_schema', name: 's', schema })).toEqual({ text: '{"n": 1}' });
    expect(checkAnswer('[1]', { type: 'json_object' })).toEqual({ error: 'it is JSON but not an object' });
    expect(checkAnswer('n is 1', { type: 'json_object' })).toEqual({ error: expect.stringMatching(/^it is not JSON/) });
    expect(checkAnswer('{"n": "one"}', { type: 'json_schema', name: 's', schema })).toEqual({
      error: expect.stringMatching(/^it does not match the schema: answer\/n must be integer/),
    });
  });

  it('reads an unclosed fence over many blank lines in linear time', () => {
    // A reply cut after its fence and 300,000 newlines: the quadratic fence pattern took about 50 s on it.
    expect(checkAnswer('```json' + '\n'.repeat(300_000) + '{"n": 1}', { type: 'json_object' })).toEqual({
      error: expect.stringMatching(/^it is not JSON/),
    });
  }, 20_000);

  it('names the one-off session in the ids it hands out, and reads it back from the results', () => {
    const pause = {
      turn: 1,
      status: 'tool_calls' as const,
      text: null,
      toolCalls: [{ id: 'c1', name: 'f', arguments: 'x'.repeat(100) }],
      iterations: 1,
      usage: ZERO_USAGE,
    };
    const deltas = pauseDeltas(pause, 'tools-abc');
    expect(deltas[0]).toEqual({ tool_calls: [{ index: 0, id: 'hermes.tools-abc.c1', type: 'function', function: { name: 'f', arguments: '' } }] });
    expect(
      deltas
        .slice(1)
        .map((d) => d.tool_calls![0]!.function.arguments)
        .join(''),
    ).toBe('x'.repeat(100));
    expect(oneOffResults([{ callId: 'hermes.tools-abc.c1', content: 'r' }])).toEqual({
      sessionId: 'tools-abc',
      results: [{ callId: 'c1', content: 'r' }],
    });
    expect(() => oneOffResults([{ callId: 'c1', content: 'r' }])).toThrow(expect.objectContaining({ status: 400, code: 'unknown_tool_call_id' }));
    expect(() =>
      oneOffResults([
        { callId: 'hermes.tools-a.c1', content: 'r' },
        { callId: 'hermes.tools-b.c2', content: 'r' },
      ]),
    ).toThrow(/two different requests/);
  });
});

describe("trimTrailingSlashes (the servers' request paths)", () => {
  it('gives what /\\/+$/ gave, "/" alone to ""', () => {
    for (const p of ['', '/', '///', '/health', '/health/', '/v1//models//', 'a/b', '/a//b']) {
      expect(trimTrailingSlashes(p)).toBe(p.replace(/\/+$/, ''));
    }
  });

  // Sent before the token: the regex took minutes on such a path, so any client could pin a core.
  it('is linear on a long run of slashes not at the end', () => {
    const slashes = '/'.repeat(200_000);
    expect(trimTrailingSlashes(`/a${slashes}x`)).toBe(`/a${slashes}x`);
    expect(trimTrailingSlashes(`/a${slashes}`)).toBe('/a');
  }, 20_000);
});
