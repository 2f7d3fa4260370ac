// Tool calls small local models write as text, through the whole loop: recovered ones run, ordinary JSON
// answers stay answers, and an unreadable attempt is corrected instead of ending the run as its "answer".
import { afterEach, describe, expect, it } from 'vitest';
import { defineProfile } from '../src/llm/profiles';
import { answer, createHarness, toolResult, type Harness } from './helpers/harness';

let h: Harness;
afterEach(async () => {
  await h?.close();
  h = undefined!; // the next test makes its own
});

describe('tool calls written as text', () => {
  it('runs the formats real models write, and marks them in the step records', async () => {
    h = await createHarness(
      [
        answer('<tools>\n{"name": "list_dir", "arguments": {}}\n</tools>'),
        answer('{"name": "read_file", "arguments": {"path": "a.txt"}}\nThat reads the file.'),
        answer('{{"name": "list_dir", "arguments": {"depth": 2}}}'),
        answer('done'),
        // native: in auto mode the worker would turn to text mode after two such replies (test/tool-modes.test.ts).
      ],
      (baseURL) => ({
        defaultName: 'default',
        profiles: { default: defineProfile('default', { baseURL, model: 'mock-model', toolCallMode: 'native' }) },
      }),
    );
    const { result, steps } = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'look around' });
      const r = await handle.result();
      return { result: r, steps: (await handle.state({ stepsAfter: 0 })).steps };
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(h.mock.requests).toHaveLength(4);
    const last = h.mock.requests[3]!.messages;
    expect(last.filter((m) => m.role === 'tool')).toHaveLength(3);
    expect(toolResult(last, 'call_2_text_0')).toMatch(/Error|a\.txt/);
    expect(steps.filter((s) => s.kind === 'model' && s.summary.includes('written as text'))).toHaveLength(3);
  });

  it('keeps an ordinary JSON answer as the answer', async () => {
    h = await createHarness([answer('{"name": "Alice", "age": 3}')]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'give me a person as JSON' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: '{"name": "Alice", "age": 3}' });
  });

  it('corrects an unreadable attempt instead of taking it as the answer; the next reply works', async () => {
    h = await createHarness([
      answer('<tool_call>{"name": "list_dir", "arguments": {</tool_call>'),
      answer('<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>'),
      answer('ok'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'list' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'ok' });
    const correction = h.mock.requests[1]!.messages.at(-1)!;
    expect(correction).toMatchObject({ role: 'user' });
    expect(String(correction.content)).toMatch(/^Your tool call could not be parsed: the JSON after <tool_call> .*; tools: /);
    expect(h.mock.requests[2]!.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
  });
});
