// Tool-call modes per profile, through the whole loop against the scripted model: `text` never sends `tools`,
// `auto` turns to text when the server rejects `tools` (and stays there on this worker) or when the model only
// ever writes its calls as text; and the system prompt's prefix is the same for every conversation.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import { fetchRuns, stepRows } from '../src/inspect/step-context';
import { quotedResults, rejectsTools, toTextMode } from '../src/llm/text-mode';
import { toolDefinitions } from '../src/tools/registry';
import { answer, createHarness, toolCall, withMode, type Harness } from './helpers/harness';
import type { RecordedRequest, Reply } from './helpers/mock-model';

let h: Harness;
afterEach(async () => {
  await h?.close();
  h = undefined!;
});

/** What Ollama answers for a model whose template has no tools; the mock answers so only when `tools` is sent. */
const rejectingTools =
  (then: Reply): Reply =>
  (req) =>
    req.body.tools
      ? { status: 400, body: { error: { message: 'registry.ollama.ai/library/mock-model:latest does not support tools', type: 'api_error' } } }
      : then;

const roles = (r: RecordedRequest) => r.messages.map((m) => m.role as string);

describe('tool-call modes', () => {
  it('auto: a server that rejects tools (400) is answered in text mode at once, and the worker remembers it', async () => {
    h = await createHarness([
      rejectingTools(answer('not reached: this request carries tools')),
      rejectingTools(answer('<tool_call>{"name": "write_file", "arguments": {"path": "a.txt", "content": "A"}}</tool_call>')),
      rejectingTools(answer('wrote it')),
      rejectingTools(answer('second conversation')),
    ]);
    const { first, second, steps } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'write a.txt' });
      const first = await run.result();
      const steps = (await run.state({ stepsAfter: 0 })).steps;
      const second = await (await h.hermes.start({ prompt: 'again' })).result();
      return { first, second, steps };
    });
    expect(first).toMatchObject({ status: 'completed', answer: 'wrote it' });
    expect(second).toMatchObject({ status: 'completed', answer: 'second conversation' });
    expect(readFileSync(path.join(h.workspace, 'a.txt'), 'utf8')).toBe('A');
    // One rejected request, then never `tools` again: the second conversation starts in text mode.
    expect(h.mock.requests.map((r) => r.status)).toEqual([400, 200, 200, 200]);
    expect(h.mock.requests.map((r) => r.body.tools !== undefined)).toEqual([true, false, false, false]);
    // The rejected request and its retry carry the same conversation.
    expect(h.mock.requests[1]!.messages.at(-1)).toEqual(h.mock.requests[0]!.messages.at(-1));
    const third = h.mock.requests[2]!;
    expect(roles(third)).toEqual(['system', 'user', 'assistant', 'user']);
    // The Hermes function-calling format Qwen2.5's template uses: <tools> signatures, then the <tool_call> format.
    expect(third.messages[0].content).toContain('<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>');
    expect(third.messages[0].content).toMatch(/^\{"type":"function","function":\{"name":"write_file","description":"Writes content/m);
    expect(third.messages[2]).toEqual({
      role: 'assistant',
      content: '<tool_call>{"name": "write_file", "arguments": {"path":"a.txt","content":"A"}}</tool_call>',
    });
    // Results in Qwen's own shape, without attributes: with `name=` the tag looked like a call to the 1.5B model.
    expect(third.messages[3].content).toMatch(/^<tool_response>\nWrote 1 bytes to a\.txt\n<\/tool_response>$/);
    expect(steps.filter((s) => s.kind === 'model').map((s) => s.summary)).toEqual(['1 tool call(s) (text mode): write_file', 'answer (text mode)']);
  });

  it('auto: answers llama.cpp\'s 500 "tools param requires --jinja flag" in text mode instead of retrying it', async () => {
    const jinja: Reply = (req) =>
      req.body.tools
        ? { status: 500, body: { error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } } }
        : answer('fine');
    h = await createHarness([jinja, jinja]);

    const result = await h.run(async () => (await h.hermes.start({ prompt: 'hi' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'fine' });
    expect(h.mock.requests.map((r) => [r.status, r.body.tools !== undefined])).toEqual([
      [500, true],
      [200, false],
    ]);
  });

  it('text: never sends tools; earlier calls and results reach the model as text', async () => {
    h = await createHarness(
      [
        answer('<tool_call>{"name": "write_file", "arguments": {"path": "b.txt", "content": "B"}}</tool_call>'),
        answer(
          '<tool_call>{"name": "read_file", "arguments": {"path": "b.txt"}}</tool_call>\n<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>',
        ),
        answer('done'),
      ],
      withMode('text'),
    );
    const { result, rows } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'write and read b.txt' });
      const result = await run.result();
      return { result, rows: stepRows(await fetchRuns(h.client, run.id)) };
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    // `hermes inspect` names the mode.
    expect(rows.filter((r) => r.kind === 'model').map((r) => r.name)).toEqual(Array.from({ length: 3 }, () => 'model mock-model (text mode)'));
    expect(h.mock.requests).toHaveLength(3);
    for (const r of h.mock.requests) {
      expect(r.body.tools).toBeUndefined();
      expect(r.raw).not.toMatch(/"role":"tool"|"tool_calls"/);
    }
    const last = h.mock.requests[2]!;
    expect(roles(last)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    // Two results of one reply: one user message, two blocks, in call order.
    expect(last.messages[5].content).toMatch(
      /^<tool_response>\n +1\| B\n[^<]*<\/tool_response>\n\n<tool_response>\n[^<]*b\.txt[^<]*<\/tool_response>$/,
    );
  });

  it('text: a reply that invents a tool result instead of calling the tool is corrected, not the answer', async () => {
    h = await createHarness(
      [
        // What Qwen2.5-Coder-1.5B wrote in text mode (shortened): an announcement and a made-up result.
        answer('I\'ll use the `list_dir` tool.\n\n<tool_response id="1" name="list_dir">a.txt</tool_response>\n\nThere is 1 file.'),
        answer('<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>'),
        answer('The workspace is empty.'),
      ],
      withMode('text'),
    );
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'how many files?' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'The workspace is empty.' });
    const correction = h.mock.requests[1]!.messages.at(-1)!;
    expect(correction.role).toBe('user');
    expect(String(correction.content)).toMatch(
      /^Your tool call could not be parsed: the reply writes a tool result itself \(<tool_response>\) but no <tool_call>/,
    );
    // The call it should have written, for the tool its tag named.
    expect(String(correction.content)).toContain('to call list_dir, write <tool_call>{"name":"list_dir","arguments":{"path":"..."}}</tool_call>');
    // Its made-up result is not shown back to it (it would copy it), the rest of the reply is.
    const shownBack = h.mock.requests[1]!.messages.at(-2)!;
    expect(shownBack).toEqual({ role: 'assistant', content: "I'll use the `list_dir` tool.\n\n\n\nThere is 1 file." });
  });

  it('native: sends tools and still recovers calls written as text', async () => {
    h = await createHarness(
      [
        answer('<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>'),
        answer('<tools>{"name": "list_dir", "arguments": {}}</tools>'),
        answer('ok'),
      ],
      withMode('native'),
    );
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'look' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'ok' });
    expect(h.mock.requests.every((r) => Array.isArray(r.body.tools))).toBe(true);
    expect(roles(h.mock.requests[2]!).filter((r) => r === 'tool')).toHaveLength(2);
  });

  it('native: a tools rejection stays a bad request', async () => {
    h = await createHarness([rejectingTools(answer('never'))], withMode('native'));
    const failed = await h.run(async () => (await h.hermes.start({ prompt: 'look' })).result());
    expect(failed).toMatchObject({ status: 'failed', reason: 'ModelBadRequest' });
    expect(h.mock.requests).toHaveLength(1);
  });

  it('auto: turns to text mode after two replies in a row written as text when the server never returned native calls', async () => {
    h = await createHarness([
      answer('{"name": "list_dir", "arguments": {}}'),
      answer('<tool_call>{"name": "list_dir", "arguments": {"depth": 2}}</tool_call>'),
      answer('done'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'look' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(h.mock.requests.map((r) => r.body.tools !== undefined)).toEqual([true, true, false]);
  });

  it('auto: stays native when the server has returned native tool calls before', async () => {
    h = await createHarness([
      toolCall('list_dir', {}),
      answer('{"name": "list_dir", "arguments": {"depth": 2}}'),
      answer('<tool_call>{"name": "list_dir", "arguments": {"depth": 3}}</tool_call>'),
      answer('done'),
    ]);
    await h.run(async () => (await h.hermes.start({ prompt: 'look' })).result());
    expect(h.mock.requests.map((r) => r.body.tools !== undefined)).toEqual([true, true, true, true]);
  });
});

describe('system prompt prefix', () => {
  for (const mode of ['native', 'text'] as const) {
    it(`is byte-identical across conversations up to the per-conversation part (${mode} mode)`, async () => {
      h = await createHarness([answer('one'), answer('two')], withMode(mode));
      const [a, b] = ['a', 'b'].map((d) => path.join(h.workspace, d));
      for (const d of [a!, b!]) mkdirSync(d);
      await h.run(async () => {
        await (await h.hermes.start({ prompt: 'first task', workspace: a })).result();
        await (await h.hermes.start({ prompt: 'a different task', workspace: b, system: 'Be brief.' })).result();
      });
      const [r1, r2] = h.mock.requests.map((r) => r.raw);
      const cut = r1!.indexOf('## This conversation');
      expect(cut).toBeGreaterThan(0);
      expect(r2!.indexOf('## This conversation')).toBe(cut);
      expect(r2!.slice(0, cut)).toBe(r1!.slice(0, cut));
      const system = h.mock.requests[0]!.messages[0].content as string;
      expect(system.indexOf('Tools: ')).toBeLessThan(system.indexOf('## This conversation'));
      // The memory block first (the default tools offer memory), then the workspace (system-prompt.ts).
      expect(system.slice(system.indexOf('## This conversation'))).toMatch(
        /^## This conversation\n<memory-context [^]*\nDate: [\d-]+\. Workspace: \//,
      );
      // In text mode the tool descriptions are part of the shared prefix.
      if (mode === 'text') expect(r1!.slice(0, cut)).toContain('<tools>\\n');
    });
  }
});

describe('text mode helpers', () => {
  const err = (status: number, message: string) => APIError.generate(status, { error: { message } }, undefined, new Headers());

  it('recognises what servers answer when they do not take tools, and nothing else', () => {
    for (const [status, message] of [
      [500, 'tools param requires --jinja flag'],
      [400, 'tools param requires --jinja flag'],
      [400, 'registry.ollama.ai/library/gemma3:4b does not support tools'],
      [400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'],
      [400, 'Unrecognized request argument supplied: tools'],
      [422, 'Function calling is not supported by this model'],
    ] as const) {
      expect(rejectsTools(err(status, message)), message).toBe(true);
    }
    for (const [status, message] of [
      [400, 'unsupported parameter'],
      [401, 'tools param requires --jinja flag'],
      [429, 'does not support tools right now, slow down'],
      [400, "This model's maximum context length is 10 tokens"],
      [503, 'overloaded'],
    ] as const) {
      expect(rejectsTools(err(status, message)), message).toBe(false);
    }
    expect(rejectsTools(new Error('does not support tools'))).toBe(false);
  });

  it('tells a quoted result from a made-up one', () => {
    const results = ['Wrote 14 bytes to /w/hello.txt', '[lines 1-2 of 2]\n     1| the first line\n     2| the second line'];
    expect(quotedResults('<tool_response>\nWrote 14 bytes to /w/hello.txt\n</tool_response>', results)).toBe('Wrote 14 bytes to /w/hello.txt');
    expect(quotedResults('Done.\n<tool_response>{"name": "write_file", "content": "Wrote 14 bytes to /w/hello.txt"}</tool_response>', results)).toBe(
      'Done.\n{"name": "write_file", "content": "Wrote 14 bytes to /w/hello.txt"}',
    );
    // A long enough piece of a result quotes it; a short one ("3") is in most results and quotes none.
    expect(quotedResults('<tool_response>1| the first line\n2| the second line</tool_response>', results)).toBe(
      '1| the first line\n2| the second line',
    );
    expect(quotedResults('<tool_response>3</tool_response>', results)).toBeUndefined();
    expect(quotedResults('<tool_response>Wrote 14 bytes to /w/other.txt</tool_response>', results)).toBeUndefined();
    // Every block must quote one; no results yet, nothing is quoted.
    expect(quotedResults('<tool_response>Wrote 14 bytes to /w/hello.txt</tool_response><tool_response>x</tool_response>', results)).toBeUndefined();
    expect(quotedResults('<tool_response>Wrote 14 bytes to /w/hello.txt</tool_response>', [])).toBeUndefined();
  });

  it('puts the tool block before the per-conversation part, or at the end of an older prompt', () => {
    const ordered = toTextMode([{ role: 'system', content: 'stable\n\n## This conversation\nWorkspace: /w' }], toolDefinitions(['list_dir']))[0]!
      .content;
    expect(ordered).toMatch(
      /^stable\n\n# Tools\n[\s\S]*\n<tools>\n\{"type":"function","function":\{"name":"list_dir"[^\n]*\n<\/tools>\n\nFor each function call[\s\S]*\n\n## This conversation\nWorkspace: \/w$/,
    );
    const old = toTextMode([{ role: 'system', content: 'old prompt\nWorkspace: /w' }], toolDefinitions(['list_dir']))[0]!.content;
    expect(old).toMatch(/^old prompt\nWorkspace: \/w\n\n# Tools\n/);
    // A grace call offers no tools: calls and results are still text, no tool block.
    const grace = toTextMode(
      [
        { role: 'system', content: 's' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list_dir', arguments: '{bad' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'Error: bad JSON' },
        { role: 'user', content: 'Summarize.' },
      ],
      [],
    );
    expect(grace).toEqual([
      { role: 'system', content: 's' },
      { role: 'assistant', content: '<tool_call>{"name": "list_dir", "arguments": "{bad"}</tool_call>' },
      { role: 'user', content: '<tool_response>\nError: bad JSON\n</tool_response>\n\nSummarize.' },
    ]);
  });
});
