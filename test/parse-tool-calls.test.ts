// Text tool-call recovery: the formats real models write, ordinary JSON answers left alone, broken attempts
// reported; and the same through the real model activity against a scripted server.
import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelActivities } from '../src/activities/model';
import type { ContextCache } from '../src/activities/context';
import { recoverToolCalls } from '../src/llm/parse-tool-calls';
import { loadProfiles } from '../src/llm/profiles';
import { inventedResult, quotedResults } from '../src/llm/text-mode';
import { toolDefinitions } from '../src/tools/registry';
import type { ModelCallResult } from '../src/shared/wire';
import { MockModel } from './helpers/mock-model';

const TOOLS = ['read_file', 'write_file', 'list_dir', 'terminal'];
const calls = (text: string, tools = TOOLS) => {
  const r = recoverToolCalls(text, tools, 'c');
  expect(r.unparsed).toBeUndefined();
  return r.calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]);
};
const unparsed = (text: string, tools = TOOLS) => {
  const r = recoverToolCalls(text, tools, 'c');
  expect(r.calls).toEqual([]);
  return r.unparsed;
};
const LS = [['list_dir', { path: '.' }]];

describe('recoverToolCalls: formats', () => {
  const cases: Array<[string, string, unknown[]]> = [
    ['<tool_call> tags', '<tool_call>\n{"name": "list_dir", "arguments": {"path": "."}}\n</tool_call>', LS],
    ['<tool_call> without a closing tag', 'Listing.\n<tool_call>\n{"name": "list_dir", "arguments": {"path": "."}}', LS],
    ['<|tool_call|>', '<|tool_call|>{"name": "list_dir", "arguments": {"path": "."}}<|/tool_call|>', LS],
    ['<function_call>', '<function_call>{"name": "list_dir", "arguments": {"path": "."}}</function_call>', LS],
    ['<tools> wrapper', '<tools>\n{"name": "list_dir", "arguments": {"path": "."}}\n</tools>', LS],
    ['a bare object as the whole reply', '{"name": "list_dir", "arguments": {"path": "."}}', LS],
    ['a bare object with trailing prose', '{"name": "list_dir", "arguments": {"path": "."}}\nThis lists the directory.', LS],
    ['a bare object after a line of prose', 'I will list the files.\n{"name": "list_dir", "arguments": {"path": "."}}', LS],
    ['doubled outer braces', '{{"name": "list_dir", "arguments": {"path": "."}}}', LS],
    ['all braces doubled', '{{"name": "list_dir", "arguments": {{"path": "."}}}}', LS],
    ['Llama <|python_tag|>', '<|python_tag|>{"name": "list_dir", "parameters": {"path": "."}}<|eom_id|>', LS],
    [
      'Llama <|python_tag|> with two calls',
      '<|python_tag|>{"name": "list_dir", "parameters": {"path": "."}}; {"name": "read_file", "parameters": {"path": "a"}}',
      [...LS, ['read_file', { path: 'a' }]],
    ],
    [
      'Mistral [TOOL_CALLS] array',
      '[TOOL_CALLS] [{"name": "list_dir", "arguments": {"path": "."}}, {"name": "terminal", "arguments": {"command": "echo 42"}}]',
      [...LS, ['terminal', { command: 'echo 42' }]],
    ],
    ['Mistral [TOOL_CALLS]name[ARGS]', '[TOOL_CALLS]list_dir[ARGS]{"path": "."}', LS],
    [
      'a JSON array of calls',
      '[\n  {"name": "list_dir", "arguments": {"path": "."}},\n  {"name": "read_file", "arguments": {"path": "a"}}\n]',
      [...LS, ['read_file', { path: 'a' }]],
    ],
    ['"tool" and "args"', '{"tool": "list_dir", "args": {"path": "."}}', LS],
    ['"parameters"', '{"name": "list_dir", "parameters": {"path": "."}}', LS],
    ['"input"', '{"name": "list_dir", "input": {"path": "."}}', LS],
    ['"function": {name, arguments}', '{"type": "function", "function": {"name": "list_dir", "arguments": {"path": "."}}}', LS],
    ['arguments as a JSON string', '{"name": "list_dir", "arguments": "{\\"path\\": \\".\\"}"}', LS],
    ['a fenced block', 'Sure:\n```json\n{"name": "list_dir", "arguments": {"path": "."}}\n```', LS],
    [
      'raw newlines inside a string',
      '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "line 1\nline 2"}}</tool_call>',
      [['write_file', { path: 'a', content: 'line 1\nline 2' }]],
    ],
    ['a missing closing brace', '{"name": "list_dir", "arguments": {"path": "."}', LS],
    ['no arguments for a tool that takes none', '<tool_call>{"name": "list_dir"}</tool_call>', [['list_dir', {}]]],
  ];
  it.each(cases)('%s', (_, text, expected) => {
    expect(calls(text)).toEqual(expected);
  });

  it('numbers the calls with the prefix, in reply order', () => {
    const r = recoverToolCalls(
      '<tool_call>{"name":"list_dir","arguments":{}}</tool_call><tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>',
      TOOLS,
      'p',
    );
    expect(r.calls.map((c) => [c.id, c.type, c.function.name, c.function.arguments])).toEqual([
      ['p_0', 'function', 'list_dir', '{}'],
      ['p_1', 'function', 'read_file', '{"path":"a"}'],
    ]);
  });

  it('passes a call to a tool that is not offered along with real ones (the workflow answers it "unknown tool")', () => {
    expect(calls('[{"name": "list_dir", "arguments": {}}, {"name": "list_files", "arguments": {}}]')).toEqual([
      ['list_dir', {}],
      ['list_files', {}],
    ]);
  });
});

describe('recoverToolCalls: what Qwen2.5-Coder-1.5B wrote (eval runs, issue 23)', () => {
  it("a call written inside the results' tag counts", () => {
    expect(calls('<tool_response>\n{"name": "list_dir", "arguments": {"path": "."}}\n</tool_response>')).toEqual(LS);
    expect(calls('<tool_response id="1" name="list_dir">{"name": "list_dir", "arguments": {"path": "."}}</tool_response>')).toEqual(LS);
  });

  it("a made-up result in the results' tag is no call and no parse problem (the model activity corrects it)", () => {
    expect(recoverToolCalls('<tool_response id="1" name="list_dir">src/</tool_response>', TOOLS, 'c')).toEqual({ calls: [] });
    expect(recoverToolCalls('<tool_response>\nWrote 13 bytes to hello.txt\n</tool_response>', TOOLS, 'c')).toEqual({ calls: [] });
  });

  it("a plan narrated over several fenced blocks: only the first block's calls (the rest build on made-up results)", () => {
    const plan =
      'Let\'s start by listing the files:\n\n```json\n{"name": "list_dir", "arguments": {"path": "."}}\n```\n\n' +
      'Let\'s assume the output is:\n\n```json\n{"files": ["file1.txt"]}\n```\n\nNext:\n\n' +
      '```json\n{"name": "read_file", "arguments": {"path": "file1.txt"}}\n```';
    expect(calls(plan)).toEqual(LS);
  });

  it('a fenced plan of calls whose later one is broken: the calls before it count', () => {
    const plan =
      'Here is the complete workflow:\n\n```json\n{\n  "name": "read_file",\n  "arguments": {\n    "path": "people.csv"\n  }\n}\n\n' +
      '{\n  "name": "write_file",\n  "arguments": {\n    "path": "people.json",\n    "content": "[{"name": "Ada", "age": 36}]\n  }\n}\n```';
    expect(calls(plan)).toEqual([['read_file', { path: 'people.csv' }]]);
    // The same without the fence's end (the reply cut at max_tokens).
    expect(calls(plan.slice(0, -3))).toEqual([['read_file', { path: 'people.csv' }]]);
    // And after a marker.
    expect(
      calls('<tool_call>{"name": "read_file", "arguments": {"path": "a"}} {"name": "write_file", "arguments": {"path": "b",}}</tool_call>'),
    ).toEqual([['read_file', { path: 'a' }]]);
  });
});

describe('recoverToolCalls: a looping reply', () => {
  it('the same call written again is one call, in the order first written', () => {
    const one = (name: string, args: object) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
    const round = [one('list_dir', { path: '.' }), one('read_file', { path: 'a' })].join('\n');
    expect(calls(Array.from({ length: 30 }, () => round).join('\n'))).toEqual([LS[0], ['read_file', { path: 'a' }]]);
    // Different arguments are different calls.
    expect(calls(`${one('read_file', { path: 'a' })}\n${one('read_file', { path: 'b' })}`)).toEqual([
      ['read_file', { path: 'a' }],
      ['read_file', { path: 'b' }],
    ]);
  });
});

describe('recoverToolCalls: ordinary answers stay answers', () => {
  it.each([
    ['an object with a "name" that is no tool', '{"name": "Alice", "age": 3}'],
    ['an object with a "name" that IS a tool, but other keys', '{"name": "terminal", "kind": "vt100", "rows": 24}'],
    ['a JSON array of numbers', '[1, 2, 3]'],
    ['fenced JSON data', 'Here it is:\n```json\n{"a": 1, "b": [2, 3]}\n```'],
    ['prose with brackets', 'See [the docs](https://example.com) and {curly} words.\n[1] a footnote'],
    ['plain prose', 'The answer is 42.'],
  ])('%s', (_, text) => {
    expect(recoverToolCalls(text, TOOLS, 'c')).toEqual({ calls: [] });
  });
});

describe('recoverToolCalls: broken attempts are reported, not answers', () => {
  it('JSON after a marker that does not parse', () => {
    expect(unparsed('<tool_call>{"name": "read_file", "arguments": {"path": "a",}}</tool_call>')).toMatch(
      /^the JSON after <tool_call> does not parse: .+; tools: read_file, write_file, list_dir, terminal$/,
    );
  });

  it('no JSON after a marker', () => {
    expect(unparsed('<tool_call>\nlist_dir(path=".")\n</tool_call>')).toMatch(/^no JSON object follows <tool_call>;/);
    expect(unparsed('<|python_tag|>brave_search.call(query="x")')).toMatch(/^no JSON object follows <\|python_tag\|>;/);
  });

  it('a marker with JSON that names no tool', () => {
    expect(unparsed('<tool_call>{"path": "."}</tool_call>')).toMatch(/^the JSON after <tool_call> has no tool "name";/);
  });

  it('a call to a tool that is not offered', () => {
    expect(unparsed('{"name": "list_files", "arguments": {"path": "."}}')).toBe(
      'it names list_files, which is not a tool here; tools: read_file, write_file, list_dir, terminal',
    );
    expect(unparsed('<tool_call>{"name": "rm_everything", "arguments": {}}</tool_call>', ['read_file'])).toBe(
      'it names rm_everything, which is not a tool here; tools: read_file',
    );
  });

  it('a bare call whose JSON is broken', () => {
    expect(unparsed('{"name": "write_file", "arguments": {"path": "a", "content": "x" "more"}}')).toMatch(
      /^the reply looks like a tool call, but its JSON does not parse: /,
    );
  });

  it('a tool definition echoed from the prompt', () => {
    const def =
      '<tools>{"type": "function", "function": {"name": "list_dir", "description": "List", "parameters": {"type": "object", "properties": {}}}}</tools>';
    expect(unparsed(def)).toMatch(/^the JSON after <tools> is the definition of list_dir, not a call to it;/);
  });
});

// A reply that degenerates into "<tool_response " over and over, never closed: patterns that read each tag's
// attributes as [^>]* scanned to the end from every one of them (tens of seconds at these sizes).
describe('many unclosed <tool_response tags are read in linear time', () => {
  const unclosed = (n: number) => '<tool_response '.repeat(n);

  it('recoverToolCalls', () => {
    expect(calls(`<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>\n${unclosed(48_000)}`)).toEqual(LS);
  }, 20_000);

  // Every marker's call never closes: each was read to the end of the reply (2 MB: ~30 s); a budget bounds the reading.
  it('recoverToolCalls on 2 MB of calls that never close', () => {
    const open = '<tool_call>{"name": "terminal", "arguments": {"command": "'.repeat(36_000);
    const r = recoverToolCalls(`<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>\n${open}`, TOOLS, 'c');
    expect(r.calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual(LS);
    expect(recoverToolCalls(open, TOOLS, 'c').calls).toEqual([]);
  }, 20_000);

  it('inventedResult (text-mode.ts)', () => {
    const reason = inventedResult(`<tool_response name="list_dir">src/</tool_response>\n${unclosed(40_000)}`, toolDefinitions(['list_dir']));
    expect(reason).toMatch(/; to call list_dir, write <tool_call>\{"name":"list_dir","arguments":\{"path":"\.\.\."\}\}<\/tool_call>$/);
  }, 20_000);

  it('quotedResults (text-mode.ts)', () => {
    const wrote = 'Wrote 14 bytes to /w/hello.txt';
    expect(quotedResults(`<tool_response>${wrote}</tool_response>${unclosed(32_000)}`, [wrote])).toBe(wrote + unclosed(32_000).trimEnd());
  }, 20_000);
});

describe('the model activity recovers calls from text', () => {
  let mock: MockModel;
  // The context comes from the workflow by query; here a stub hands it over (the client is never used).
  const cache = { get: () => Promise.resolve([{ role: 'user', content: 'go' }]), noteAssistant: () => {} } as unknown as ContextCache;
  beforeAll(async () => {
    mock = await MockModel.start();
  });
  afterAll(() => mock.close());

  const call = async (content: string, tools = TOOLS) => {
    mock.push({ content });
    const profiles = loadProfiles({ HERMES_CONFIG: '/nonexistent/hermes.config.json', OPENAI_BASE_URL: mock.baseURL, HERMES_MODEL: 'm' });
    const { callModel } = createModelActivities({ profiles, contextCache: cache });
    return (await new MockActivityEnvironment(undefined, {
      client: { withAbortSignal: <T>(_s: AbortSignal, fn: () => T) => fn() } as unknown as Client,
    }).run(callModel, {
      context: { version: 1, count: 1 },
      tools,
      step: 3,
    })) as ModelCallResult;
  };

  it('marks recovered calls and drops the text', async () => {
    const r = await call('{{"name": "list_dir", "arguments": {"path": "."}}}');
    expect(r.message).toEqual({
      content: null,
      tool_calls: [{ id: 'call_3_text_0', type: 'function', function: { name: 'list_dir', arguments: '{"path":"."}' } }],
    });
    expect(r.fromText).toBe(true);
    expect(r.unparsedToolCall).toBeUndefined();
  });

  it('keeps an ordinary JSON answer as the answer', async () => {
    const r = await call('{"name": "Alice", "age": 3}');
    expect(r.message).toEqual({ content: '{"name": "Alice", "age": 3}' });
    expect(r).not.toHaveProperty('fromText');
    expect(r).not.toHaveProperty('unparsedToolCall');
  });

  it('flags an attempted call it cannot recover, keeping the text', async () => {
    const r = await call('<tool_call>{"name": "list_dir", "arguments": {"path": </tool_call>');
    expect(r.message).toEqual({ content: '<tool_call>{"name": "list_dir", "arguments": {"path": </tool_call>' });
    expect(r.unparsedToolCall).toMatch(/^the JSON after <tool_call> does not parse: /);
    expect(r).not.toHaveProperty('fromText');
  });

  it('does not look for calls when no tools are offered', async () => {
    const r = await call('<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>', []);
    expect(r.message.tool_calls).toBeUndefined();
    expect(r).not.toHaveProperty('unparsedToolCall');
  });
});

describe('unescaped quotes inside a string value', () => {
  const TOOLS = ['write_file', 'terminal'];
  // Qwen2.5-Coder-1.5B's first reply to the README quickstart, verbatim: a Python docstring's bare """ inside the
  // JSON string. It used to end in a correction and then a non-answer.
  const reply = [
    '```json',
    '{',
    '  "name": "write_file",',
    '  "arguments": {',
    '    "path": "primes.py",',
    '    "content": "def primes(n):\\n    """Print the first n primes."""\\n    primes = [2]\\n    i = 3\\n    while len(primes) < n:\\n        if all(i % p != 0 for p in primes):\\n            primes.append(i)\\n        i += 2\\n    for p in primes:\\n        print(p)"',
    '  }',
    '}',
    '```',
  ].join('\n');

  it('recovers the call with the quotes as text', () => {
    const r = recoverToolCalls(reply, TOOLS, 'c');
    expect(r.unparsed).toBeUndefined();
    expect(r.calls).toHaveLength(1);
    const args = JSON.parse(r.calls[0]!.function.arguments) as { path: string; content: string };
    expect(args.path).toBe('primes.py');
    expect(args.content).toContain('    """Print the first n primes."""\n    primes = [2]');
    expect(args.content.endsWith('print(p)')).toBe(true);
  });

  it('leaves well-formed strings with escaped quotes and commas alone', () => {
    const ok = '{"name": "terminal", "arguments": {"command": "echo \\"a, b\\": done"}}';
    const r = recoverToolCalls(ok, TOOLS, 'c');
    expect(JSON.parse(r.calls[0]!.function.arguments)).toEqual({ command: 'echo "a, b": done' });
  });
});
