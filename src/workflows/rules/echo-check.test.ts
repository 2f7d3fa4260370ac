// The checks that keep the runtime's own instructions, and a tool result the model made up, from passing for its
// answer (src/workflows/rules/echo-check.ts).
import { describe, expect, it } from 'vitest';
import { echoedInstructions, madeUpResult } from './echo-check';
import { EMPTY_NUDGE, TEXT_MODE_CALL_FORMAT, unparsedCallCorrection } from '../../shared/texts';

describe('echoedInstructions', () => {
  it.each([
    // What Qwen2.5-Coder-1.5B answered after a correction (eval run, issue 23): the correction, reworded at its end.
    ['the correction, reworded', 'To call a tool, reply with exactly one JSON object per call inside the `tools` array.'],
    ['the correction verbatim', unparsedCallCorrection('no JSON object follows <tool_call>')],
    ['the text-mode format', TEXT_MODE_CALL_FORMAT],
    ['a part of it, in other case and spacing', 'FOR EACH FUNCTION CALL, return a JSON object with function name and\n   arguments within tags'],
    ['the empty-reply nudge', `Sure. ${EMPTY_NUDGE}`],
    // Text mode shows a reply of made-up results only as this; the model then answered with it (after-auto run).
    ['the placeholder of a removed reply', '(a reply that wrote tool results itself)'],
    ['a rule of the system prompt', 'Read before you edit: look at a file (or list the directory) before you change it.'],
  ])('flags %s', (_, text) => {
    expect(echoedInstructions(text)).toMatch(/^".+"$/);
  });

  it.each([
    ['a number', '37'],
    ['words of a runtime text, not the whole', 'The task is done.'],
    ['a short answer', 'The file has 37 lines.'],
    ['a report', 'I created hello.txt with the line "Hello, world!" and read it back to check it. The task is done.'],
    ['code', 'def mean(values):\n    return sum(values) / len(values)\n'],
    ['an answer about tools', 'To call the API, send a JSON object with the fields name and age; the tool replies with the id.'],
    ['nothing', ''],
  ])('leaves %s alone', (_, text) => {
    expect(echoedInstructions(text)).toBeUndefined();
  });
});

describe('madeUpResult', () => {
  it("flags a tool's result shape in a reply made before any tool ran", () => {
    // What Qwen2.5-Coder-1.5B answered to "Run the command `python3 answer.py` …" before calling anything.
    const reply = '```\nWrote 27 bytes to /tmp/ws/answer.py\nexit code: 0\n```';
    expect(madeUpResult(reply, false)).toBe(`"Wrote 27 bytes to /" is what a tool's result says, and no tool has run yet`);
    expect(madeUpResult('43\nexit code: 0', false)).toMatch(/^"exit code: 0"/);
  });

  it('leaves it alone once a tool has run (the reply may quote a real result), and ordinary answers always', () => {
    expect(madeUpResult('Wrote 27 bytes to answer.py\nexit code: 0', true)).toBeUndefined();
    expect(madeUpResult('The command exited with code 0 and printed 43.', false)).toBeUndefined();
    expect(madeUpResult('37', false)).toBeUndefined();
  });
});

describe('echoedInstructions: the task handed back', () => {
  const task = 'The test in test_mathutil.py fails. Fix the bug in mathutil.py so that `python3 test_mathutil.py` passes. Do not change the test.';

  it('flags a reply that is a piece of the task (seen as the 1.5B model\'s "answer")', () => {
    expect(
      echoedInstructions('The test in test_mathutil.py fails. Fix the bug in mathutil.py so that `python3 test_mathutil.py` passes.', task),
    ).toMatch(/\(the task\)$/);
  });

  it('leaves an answer that restates the task alone', () => {
    const write = 'Create a file named hello.txt in the workspace containing exactly the line: Hello, world!';
    expect(echoedInstructions('I created a file named hello.txt in the workspace containing exactly the line: Hello, world!', write)).toBeUndefined();
    expect(echoedInstructions('Fixed: mean() divided by len(values) - 1; python3 test_mathutil.py passes now.', task)).toBeUndefined();
  });
});
