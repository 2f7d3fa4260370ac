// Small models (issue 23, point 4), through the loop against the scripted model: a reply that hands back the
// runtime's own instructions is not the answer; text-mode calls written in the results' tag or in a broken plan
// are read; a small profile is shown the core tools and finds the rest with tool_search, which shows them from the
// next step on — also when every workflow task replays from history.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defineProfile } from '../src/llm/profiles';
import { TOOLSETS } from '../src/tools/registry';
import { REPEATED_RESULT_NUDGE, UNTOOLED_ANSWER_NUDGE } from '../src/shared/texts';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import type { RecordedRequest } from './helpers/mock-model';

let h: Harness;
afterEach(async () => {
  await h?.close();
  h = undefined!;
});

/** Runs one conversation on the harness's worker: its result and its step records. */
async function resultAndSteps(prompt: string) {
  const run = await h.hermes.start({ prompt });
  return { result: await run.result(), steps: (await run.state({ stepsAfter: 0 })).steps };
}

const PARROT = 'To call a tool, reply with exactly one JSON object per call inside the `tools` array.';

describe("the runtime's instructions are not an answer", () => {
  it('an echo gets a correction and the turn goes on; five in a row stop the run like unreadable calls', async () => {
    h = await createHarness([
      answer(PARROT),
      // Before any tool ran, a tool's result made up (as the 1.5B model answered "run python3 answer.py").
      answer('```\nWrote 27 bytes to answer.py\nexit code: 0\n```'),
      answer('The workspace is empty.'),
      // Second conversation: the echo again and again.
      ...Array.from({ length: 5 }, () => answer(PARROT)),
      answer('I could not do it.'),
    ]);
    const { first, steps, second } = await h.run(async () => {
      const { result: first, steps } = await resultAndSteps('how many files?');
      return { first, steps, second: (await resultAndSteps('again')).result };
    });
    expect(first).toMatchObject({ status: 'completed', answer: 'The workspace is empty.' });
    const correction = h.mock.requests[1]!.messages.at(-1)!;
    expect(correction.role).toBe('user');
    expect(String(correction.content)).toMatch(/^Your reply repeats the instructions of the runtime \("to call a tool reply with exactly one …"\)/);
    // Without the call format it echoed: a correction holding it was handed back again (seen with the 1.5B model).
    expect(String(correction.content)).not.toContain('To call a tool');
    expect(String(h.mock.requests[2]!.messages.at(-1)!.content)).toMatch(
      /^Your reply is not an answer: "Wrote 27 bytes to a" is what a tool's result says/,
    );
    expect(steps.filter((s) => s.kind === 'model').map((s) => s.summary)).toEqual([
      "echo of the runtime's instructions",
      'made-up tool result',
      'answer',
    ]);
    expect(second).toMatchObject({ status: 'stopped_repeating', reason: 'InvalidToolCalls', answer: 'I could not do it.' });
    expect(h.mock.requests).toHaveLength(9);
  });
});

describe('an echo that holds a call tag', () => {
  it('gets the echo correction, not the unreadable-call one with the format it echoed', async () => {
    // As the 1.5B model answered five times in a row (auto and text mode).
    h = await createHarness([
      answer('To call a tool, reply with exactly one JSON object per call inside <tools></tools> XML tags.'),
      answer('Done.'),
    ]);
    const { result, steps } = await h.run(() => resultAndSteps('count the files'));
    expect(result).toMatchObject({ status: 'completed', answer: 'Done.' });
    const correction = String(h.mock.requests[1]!.messages.at(-1)!.content);
    expect(correction).toMatch(/^Your reply repeats the instructions of the runtime/);
    expect(correction).not.toContain('could not be parsed');
    expect(steps.filter((s) => s.kind === 'model').map((s) => s.summary)).toEqual(["echo of the runtime's instructions", 'answer']);
  });
});

describe('a final summary that repeats the stop request', () => {
  it('is no answer: the stopped run ends without one, and a note says why', async () => {
    const stop =
      '5 tool calls in a row could not run, the last one unreadable: they name tools you do not have or have invalid arguments, ' +
      'and the run is being stopped. Summarize your progress: what is done, what remains, and the best answer you can give now.';
    h = await createHarness([...Array.from({ length: 5 }, () => answer(PARROT)), answer(stop)]);
    const { result, steps } = await h.run(() => resultAndSteps('count the files'));
    expect(result).toMatchObject({ status: 'stopped_repeating', reason: 'InvalidToolCalls', answer: '' });
    expect(steps.map((s) => s.summary)).toContainEqual(expect.stringMatching(/^the final summary repeats the runtime's instructions \("/));
  });
});

describe('a <tool_response> in a reply', () => {
  it('repeating a result the conversation holds is asked for once more (no call format in the nudge), then an answer quoting it; one no tool returned is made up', async () => {
    // As the 1.5B model ended the write-file task in native mode: the real result, in the results' tag, again and again.
    const quote = (req: RecordedRequest) => answer(`<tool_response>\n${toolResult(req.messages, 'w1')}\n</tool_response>`);
    h = await createHarness([
      toolCall('write_file', { path: 'hello.txt', content: 'Hello, world!\n' }, 'w1'),
      quote,
      quote,
      // Second conversation: a result of a tool that ran, but not what it returned.
      toolCall('list_dir', {}, 'l1'),
      answer('<tool_response>\nhello.txt\nnotes.md\nsrc/ (12 entries)\n</tool_response>'),
      answer('There is one file, hello.txt.'),
    ]);
    const { first, steps, second } = await h.run(async () => {
      const { result: first, steps } = await resultAndSteps('write hello.txt');
      return { first, steps, second: (await resultAndSteps('what is here?')).result };
    });
    const wrote = toolResult(h.mock.requests[1]!.messages, 'w1')!;
    expect(wrote).toMatch(/^Wrote 14 bytes to /);
    expect(h.mock.requests[2]!.messages.at(-1)).toEqual({ role: 'user', content: REPEATED_RESULT_NUDGE });
    expect(first).toMatchObject({ status: 'completed', answer: wrote });
    expect(steps.filter((s) => s.kind === 'model').map((s) => s.summary)).toEqual(['1 tool call(s): write_file', 'repeated tool result', 'answer']);
    expect(second).toMatchObject({ status: 'completed', answer: 'There is one file, hello.txt.' });
    expect(String(h.mock.requests[5]!.messages.at(-1)!.content)).toMatch(/the reply writes a tool result itself \(<tool_response>\)/);
    expect(h.mock.requests).toHaveLength(6);
  });
});

describe('text mode reads what the 1.5B model wrote', () => {
  const text = (baseURL: string) => ({
    defaultName: 'default',
    profiles: { default: defineProfile('default', { baseURL, model: 'mock-model', toolCallMode: 'text' }) },
  });

  it('a call inside <tool_response> tags runs; a fenced plan whose second call is broken runs its first', async () => {
    h = await createHarness(
      [
        answer('<tool_response>\n{"name": "write_file", "arguments": {"path": "c.txt", "content": "C"}}\n</tool_response>'),
        answer(
          '```json\n{"name": "read_file", "arguments": {"path": "c.txt"}}\n\n{"name": "patch", "arguments": {"path": "c.txt", "old_string": "C", "new_string": "D}}\n```',
        ),
        answer('c.txt holds C.'),
      ],
      text,
    );
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'write c.txt' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'c.txt holds C.' });
    expect(readFileSync(path.join(h.workspace, 'c.txt'), 'utf8')).toBe('C');
    expect(h.mock.requests[2]!.messages.at(-1)!.content).toMatch(/^<tool_response>\n +1\| C\n[^<]*<\/tool_response>$/);
  });
});

describe('small profiles: the core tools and tool_search', () => {
  const profiles = (baseURL: string) => ({
    defaultName: 'default',
    profiles: {
      // Small by its window (≤ 16K tokens), by its flag, and a small window that says it is not small.
      default: defineProfile('default', { baseURL, model: 'mock-model', contextWindow: 8192 }),
      flagged: defineProfile('flagged', { baseURL, model: 'mock-model', small: true }),
      big: defineProfile('big', { baseURL, model: 'mock-model', contextWindow: 8192, small: false }),
    },
  });

  it('shows the core tools and tool_search; what tool_search finds is shown from the next step, also on replay', async () => {
    h = await createHarness(
      [
        toolCall('tool_search', { query: 'search text in files' }, 's1'),
        toolCall('search_files', { pattern: 'TODO' }, 'f1'),
        answer('No TODO.'),
        // A small model's answer before any tool ran is asked for once more; a big one's is taken.
        answer('flagged'),
        answer('flagged, checked'),
        answer('big'),
      ],
      profiles,
    );
    const { result, steps } = await h.run(
      async () => {
        const run = await h.hermes.start({ prompt: 'find TODOs', tools: ['files', 'terminal', 'web'] });
        const result = await run.result();
        const flagged = await (await h.hermes.start({ prompt: 'x', model: 'flagged' })).result();
        const big = await (await h.hermes.start({ prompt: 'y', model: 'big' })).result();
        expect([flagged.answer, big.answer]).toEqual(['flagged, checked', 'big']);
        return { result, steps: (await run.state({ stepsAfter: 0 })).steps };
      },
      { tuning: { maxCachedWorkflows: 0 } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'No TODO.' });
    const [first, second, third, flagged, flaggedAgain, big] = h.mock.requests;
    expect(flaggedAgain!.messages.at(-1)).toEqual({ role: 'user', content: UNTOOLED_ANSWER_NUDGE });
    expect(h.mock.requests).toHaveLength(6);
    const core = ['read_file', 'write_file', 'patch', 'list_dir', 'terminal'];
    expect(first!.tools).toEqual([...core, 'tool_search']);
    expect(first!.messages[0].content).toContain(`Tools: ${[...core, 'tool_search'].join(', ')}.`);
    // One-line descriptions and trimmed schemas for a small model; the full ones otherwise.
    const readFile = (r: typeof first) => r!.body.tools.find((t: { function: { name: string } }) => t.function.name === 'read_file').function;
    expect(readFile(first).description).toBe('Reads a text file of the workspace: its numbered lines.');
    expect(JSON.stringify(readFile(first).parameters)).not.toMatch(/additionalProperties|minLength|9007199254740991/);
    // A bound the tool checks stays: a constrained step's grammar is built from the same schema.
    expect(readFile(first).parameters.properties.offset).toMatchObject({ type: 'integer', minimum: 1 });
    // The whole tools JSON of a small model's request: under 2 K tokens (~4 bytes a token).
    expect(JSON.stringify(first!.body.tools).length / 4).toBeLessThan(2000);
    expect(toolResult(second!.messages, 's1')).toMatch(/^Found \d; you can call them from now on:\n- search_files: /);
    // In the order of the offered tools; web_fetch is still behind tool_search.
    expect(second!.tools).toEqual(['read_file', 'write_file', 'patch', 'list_dir', 'search_files', 'terminal', 'tool_search']);
    expect(toolResult(third!.messages, 'f1')).toBe('No matches for /TODO/ in .');
    expect(steps.filter((s) => s.kind === 'tool').map((s) => s.name)).toEqual(['tool_search', 'search_files']);
    // A profile flagged small gets every default tool it has in the core set; one that says small: false, all.
    expect(flagged!.tools).toEqual([...TOOLSETS.core!, 'tool_search']);
    expect(big!.tools).not.toContain('tool_search');
    expect(big!.tools).toContain('search_files');
    expect(readFile(big).description).toMatch(/^Returns the lines of a text file/);
  });

  it('a tool named one by one stays shown', async () => {
    h = await createHarness([answer('ok'), answer('ok')], profiles);
    await h.run(async () => (await h.hermes.start({ prompt: 'x', tools: ['files', 'search_files'] })).result());
    expect(h.mock.requests[0]!.tools).toEqual(['read_file', 'write_file', 'patch', 'list_dir', 'search_files']);
  });
});
