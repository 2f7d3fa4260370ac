// The agent loop end to end: real Temporal dev server, real worker, real openai client over HTTP to a
// scripted endpoint, real files in a temp workspace.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextCache } from '../src/activities/context';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function eventsOf(id: string) {
  const history = await h.client.workflow.getHandle(id).fetchHistory();
  return history.events ?? [];
}

describe('conversation loop', () => {
  it('writes a file, reads it back and answers; the second request carries the first tool result', async () => {
    h = await createHarness([
      toolCall('write_file', { path: 'notes/hello.txt', content: 'hello from hermes\n' }, 'c1'),
      toolCall('read_file', { path: 'notes/hello.txt' }, 'c2'),
      answer('The file says hello.'),
    ]);
    // maxCachedWorkflows: 0 — every workflow task replays the history from the start (determinism check).
    const result = await h.run(
      async () => {
        const run = await h.hermes.start({ prompt: 'Write hello.txt and read it back' });
        return run.result();
      },
      { tuning: { maxCachedWorkflows: 0 } },
    );
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('The file says hello.');
    expect(result.iterations).toBe(3);
    expect(result.toolCalls).toBe(2);
    expect(readFileSync(path.join(h.workspace, 'notes/hello.txt'), 'utf8')).toBe('hello from hermes\n');
    const second = h.mock.requests[1]!;
    expect(toolResult(second.messages, 'c1')).toMatch(/Wrote \d+ bytes/);
    expect(toolResult(h.mock.requests[2]!.messages, 'c2')).toContain('hello from hermes');
    expect(h.mock.requests[0]!.tools).toEqual(expect.arrayContaining(['read_file', 'write_file', 'terminal']));
    expect(result.usage.totalTokens).toBe(3 * 15);
    h.mock.assertDone();
  });

  it('turns unknown tools, non-JSON and schema-invalid arguments into error results and completes', async () => {
    h = await createHarness([
      {
        toolCalls: [
          { id: 'u1', name: 'launch_rockets', arguments: {} },
          { id: 'j1', name: 'read_file', arguments: '{"path": "a.txt"' },
          { id: 's1', name: 'read_file', arguments: { path: 42 } },
          { id: 'r1', name: 'Read-File', arguments: { path: 'a.txt' } },
        ],
      },
      answer('done despite the errors'),
    ]);
    writeFileSync(path.join(h.workspace, 'a.txt'), 'alpha\n');
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('completed');
    const msgs = h.mock.requests[1]!.messages;
    expect(toolResult(msgs, 'u1')).toMatch(/unknown tool "launch_rockets".*Available tools: .*read_file/);
    expect(toolResult(msgs, 'j1')).toMatch(/not a JSON object \(invalid JSON/);
    expect(toolResult(msgs, 's1')).toMatch(/invalid arguments for read_file:[\s\S]*path/);
    // An obvious misspelling is repaired, not rejected.
    expect(toolResult(msgs, 'r1')).toContain('alpha');
    expect(msgs.filter((m) => m.role === 'tool')).toHaveLength(4);
  });

  it('takes tool calls as servers really send them: no type, object arguments, a non-string name, content parts', async () => {
    const completion = (message: object) => ({
      status: 200,
      body: {
        id: 'raw',
        object: 'chat.completion',
        created: 0,
        model: 'raw-model',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', ...message } }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      },
    });
    h = await createHarness([
      completion({
        content: null,
        tool_calls: [
          { id: 'o1', function: { name: 'write_file', arguments: { path: 'o.txt', content: 'object args' } } },
          { id: 'n1', type: 'function', function: { name: 7, arguments: '{}' } },
        ],
      }),
      completion({
        content: [
          { type: 'text', text: 'all ' },
          { type: 'text', text: 'done' },
        ],
      }),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'all done' });
    expect(readFileSync(path.join(h.workspace, 'o.txt'), 'utf8')).toBe('object args');
    expect(toolResult(h.mock.requests[1]!.messages, 'n1')).toMatch(/^Error: unknown tool "7"/);
  });

  it('caps a reply too large for history instead of failing the step on every (paid) retry', async () => {
    const huge = 'z'.repeat(700_000);
    h = await createHarness([toolCall('write_file', { path: 'huge.txt', content: huge }, 'w'), answer(`${'y'.repeat(600_000)}THE END`)]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('completed');
    expect(h.mock.requests).toHaveLength(2); // no retries
    expect(toolResult(h.mock.requests[1]!.messages, 'w')).toMatch(/too large to record: \d+ characters; send big content in several smaller calls/);
    expect(existsSync(path.join(h.workspace, 'huge.txt'))).toBe(false);
    expect(result.answer).toMatch(/\n\[\.\.\. reply cut: \d+ more characters\]$/);
  });

  it('runs read-only calls concurrently and state-changing calls one at a time, in order', async () => {
    h = await createHarness([
      {
        toolCalls: [
          { id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } },
          { id: 'r2', name: 'read_file', arguments: { path: 'b.txt' } },
        ],
      },
      {
        toolCalls: [
          { id: 'w1', name: 'write_file', arguments: { path: 'out.txt', content: 'first' } },
          { id: 'w2', name: 'write_file', arguments: { path: 'out.txt', content: 'second' } },
        ],
      },
      answer('ok'),
    ]);
    writeFileSync(path.join(h.workspace, 'a.txt'), 'A');
    writeFileSync(path.join(h.workspace, 'b.txt'), 'B');
    const { id, result } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'go' });
      return { id: run.id, result: await run.result() };
    });
    expect(result.status).toBe('completed');
    expect(readFileSync(path.join(h.workspace, 'out.txt'), 'utf8')).toBe('second');
    // From the history: both reads were scheduled before either finished; the second write only after the
    // first completed.
    const events = await eventsOf(id);
    const toolEvents = events
      .map((e, i) => ({ i, e }))
      .filter(({ e }) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool' || e.activityTaskCompletedEventAttributes);
    const scheduled = events.flatMap((e, i) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool' ? [i] : []));
    const completed = events.flatMap((e, i) => (e.activityTaskCompletedEventAttributes ? [i] : []));
    expect(toolEvents.length).toBeGreaterThan(0);
    expect(scheduled).toHaveLength(4);
    const [r1, r2, w1, w2] = scheduled as [number, number, number, number];
    const firstCompletionAfter = (i: number) => completed.find((c) => c > i)!;
    expect(r2).toBeLessThan(firstCompletionAfter(r1)); // overlap
    expect(w2).toBeGreaterThan(firstCompletionAfter(w1)); // sequential
  });

  it('stops after maxIterations tool rounds with one tool-less grace call', async () => {
    h = await createHarness([
      { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { toolCalls: [{ name: 'list_dir', arguments: { path: '.', depth: 2 } }] },
      { toolCalls: [{ name: 'list_dir', arguments: { path: '.', depth: 3 } }] },
      answer('Summary: I listed the workspace three times.'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'explore', maxIterations: 3 })).result());
    expect(result.status).toBe('budget_exhausted');
    expect(result.answer).toBe('Summary: I listed the workspace three times.');
    expect(result.iterations).toBe(3);
    expect(result.toolCalls).toBe(3);
    expect(h.mock.requests).toHaveLength(4);
    expect(h.mock.requests.slice(0, 3).every((r) => (r.tools?.length ?? 0) > 0)).toBe(true);
    const grace = h.mock.requests[3]!;
    expect(grace.tools ?? []).toHaveLength(0);
    expect(grace.body.tools).toBeUndefined();
    expect(String(grace.messages.at(-1)!.content)).toMatch(/budget .* used up/i);
    h.mock.assertDone();
  });

  it('runs exact duplicate calls once and still answers every call id', async () => {
    h = await createHarness([
      {
        toolCalls: [
          { id: 'd1', name: 'terminal', arguments: { command: 'echo run >> count.txt' } },
          { id: 'd2', name: 'terminal', arguments: { command: 'echo run >> count.txt' } },
        ],
      },
      answer('ok'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('completed');
    expect(readFileSync(path.join(h.workspace, 'count.txt'), 'utf8')).toBe('run\n');
    const msgs = h.mock.requests[1]!.messages;
    expect(toolResult(msgs, 'd1')).toMatch(/exit code: 0/);
    expect(toolResult(msgs, 'd2')).toMatch(/duplicate of call d1/);
  });

  it('runs at most 64 calls of one reply and tells the model about the rest (2,100 wedged the conversation)', async () => {
    // Past 2,000 pending activities the server fails every workflow task: the reply is cut well before that.
    const calls = Array.from({ length: 70 }, (_, i) => ({ id: `r${i}`, name: 'read_file', arguments: { path: `f${i}.txt` } }));
    h = await createHarness([{ toolCalls: calls }, answer('ok')]);
    for (let i = 0; i < 70; i++) writeFileSync(path.join(h.workspace, `f${i}.txt`), `file number ${i}\n`);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result).toMatchObject({ status: 'completed', toolCalls: 64 });
    const msgs = h.mock.requests[1]!.messages;
    const assistant = msgs.find((m) => m.role === 'assistant') as { tool_calls?: Array<{ id: string }> };
    expect(assistant.tool_calls?.map((c) => c.id)).toEqual(calls.slice(0, 64).map((c) => c.id));
    expect(msgs.filter((m) => m.role === 'tool')).toHaveLength(64);
    expect(toolResult(msgs, 'r63')).toMatch(/6 more tool call\(s\) of this reply were not run: one reply may make at most 64/);
    expect(toolResult(msgs, 'r62')).toMatch(/file number 62/);
    expect(toolResult(msgs, 'r62')).not.toMatch(/not run/);
  });

  it('keeps a reply whose calls together are over a payload: the largest are answered "too large", the rest run', async () => {
    // Without the payload store (a cluster's default), a result over 2 MiB failed to upload on every retry.
    const sizes = [400_000, 500_000, 480_000, 490_000, 460_000];
    const calls = sizes.map((n, i) => ({ id: `w${i}`, name: 'write_file', arguments: { path: `big${i}.txt`, content: 'x'.repeat(n) } }));
    const store = process.env.HERMES_PAYLOAD_STORE;
    process.env.HERMES_PAYLOAD_STORE = 'off';
    let result;
    try {
      h = await createHarness([{ toolCalls: calls }, answer('ok')]);
      result = await h.run(async () => (await h.hermes.start({ prompt: 'write them' })).result());
    } finally {
      if (store === undefined) delete process.env.HERMES_PAYLOAD_STORE;
      else process.env.HERMES_PAYLOAD_STORE = store;
    }
    expect(result).toMatchObject({ status: 'completed', modelCalls: 2 });
    expect(h.mock.requests).toHaveLength(2); // no retried model call
    const msgs = h.mock.requests[1]!.messages;
    for (const i of [1, 3]) {
      expect(toolResult(msgs, `w${i}`)).toMatch(/too large to record: \d+ characters, with the reply's other calls more than one step may record/);
      expect(existsSync(path.join(h.workspace, `big${i}.txt`))).toBe(false);
    }
    for (const i of [0, 2, 4]) expect(readFileSync(path.join(h.workspace, `big${i}.txt`), 'utf8')).toHaveLength(sizes[i]!);
  });

  it('refuses paths outside the workspace and reports a terminal timeout, then goes on', async () => {
    h = await createHarness([
      {
        toolCalls: [
          { id: 'p1', name: 'read_file', arguments: { path: '../../etc/passwd' } },
          { id: 'p2', name: 'read_file', arguments: { path: '/etc/passwd' } },
          { id: 'p3', name: 'write_file', arguments: { path: '../escape.txt', content: 'x' } },
        ],
      },
      toolCall('terminal', { command: 'sleep 30', timeout: 1 }, 't1'),
      answer('finished'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('completed');
    const msgs = h.mock.requests[1]!.messages;
    for (const id of ['p1', 'p2', 'p3']) expect(toolResult(msgs, id)).toMatch(/outside the workspace/);
    expect(existsSync(path.join(h.workspace, '..', 'escape.txt'))).toBe(false);
    // The timeout's own word, not a stopwatch: the 30 s sleep was killed after 1 s.
    expect(toolResult(h.mock.requests[2]!.messages, 't1')).toMatch(/timed out after 1 ?s/);
  });

  it('nudges once on an empty reply, then accepts the answer', async () => {
    h = await createHarness([{ content: '' }, answer('here it is')]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('here it is');
    expect(String(h.mock.requests[1]!.messages.at(-1)!.content)).toMatch(/last reply was empty/);
  });

  it('ends with a clear status when the model keeps returning nothing', async () => {
    h = await createHarness([{ content: '' }, { content: null }, { content: '  ' }]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('failed');
    expect(result.reason).toBe('EmptyResponse');
    expect(h.mock.requests).toHaveLength(3);
  });

  it('warns a looping model, then stops it with status stopped_repeating and a summary', async () => {
    const same = () => toolCall('read_file', { path: 'same.txt' });
    h = await createHarness([same(), same(), same(), same(), answer('I was stuck reading same.txt.')]);
    writeFileSync(path.join(h.workspace, 'same.txt'), 'nothing new\n');
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('stopped_repeating');
    expect(result.answer).toBe('I was stuck reading same.txt.');
    const warnedAt = h.mock.requests.findIndex((r) => r.messages.some((m) => /You are looping/.test(String(m.content))));
    expect(warnedAt).toBe(3);
    expect(h.mock.requests).toHaveLength(5);
    expect(h.mock.requests[4]!.tools ?? []).toHaveLength(0);
  });

  it('recovers tool calls a model wrote as text', async () => {
    h = await createHarness([
      { content: 'Let me look.\n<tool_call>{"name": "write_file", "arguments": {"path": "t.txt", "content": "tagged"}}</tool_call>' },
      answer('written'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('completed');
    expect(readFileSync(path.join(h.workspace, 't.txt'), 'utf8')).toBe('tagged');
  });

  it('continues as new when the history passes the byte backstop, carrying the whole conversation', async () => {
    const reads = Array.from({ length: 20 }, (_, i) => toolCall('read_file', { path: 'big.txt', offset: i + 1 }, `r${i}`));
    h = await createHarness([...reads, answer('read it all')]);
    writeFileSync(path.join(h.workspace, 'big.txt'), Array.from({ length: 40 }, (_, i) => `${i} ${'z'.repeat(200)}`).join('\n'));
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go', maxHistoryBytes: 64 * 1024 })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'read it all', toolCalls: 20 });
    expect(result.runs).toBeGreaterThan(1);
    expect(h.mock.requests.at(-1)!.messages.filter((m) => m.role === 'tool')).toHaveLength(20);
  });

  it('rebuilds the context from its own results and queries only for what the workflow added', async () => {
    h = await createHarness([
      toolCall('write_file', { path: 'a.txt', content: 'A' }, 'w'),
      { toolCalls: [{ id: 'x', name: 'nope', arguments: {} }] },
      toolCall('read_file', { path: 'a.txt' }, 'r'),
      answer('done'),
    ]);
    const cache = new ContextCache();
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result(), { contextCache: cache });
    expect(result.status).toBe('completed');
    // Step 1: the whole context came with the call (system + prompt). Step 2: rebuilt (assistant + write result).
    // Step 3: query, since the workflow wrote the unknown-tool error itself. Step 4: rebuilt.
    expect(cache.stats).toEqual({ queries: 1, rebuilt: 2, whole: 1, resets: 0 });
    expect(toolResult(h.mock.requests[2]!.messages, 'x')).toMatch(/unknown tool "nope"/);
    expect(toolResult(h.mock.requests[3]!.messages, 'r')).toContain('A');
    expect(h.mock.requests[3]!.messages).toHaveLength(8);
  });

  it('rejects bad start options before anything reaches the server', async () => {
    h = await createHarness([]);
    await expect(h.hermes.start({ prompt: '   ' })).rejects.toThrow(/prompt: must not be empty/);
    await expect(h.hermes.start({ prompt: 'x', maxIterations: 1_000_001 })).rejects.toThrow(/maxIterations/);
    await expect(h.hermes.start({ prompt: 'x', tools: ['no such tool'] })).rejects.toThrow(/unknown tools or toolsets: no such tool/);
  });
});
