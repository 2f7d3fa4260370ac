// The step follower of `hermes run` and `hermes chat` against a scripted `state` query: steps land in bursts
// between two looks, as they do when a batch of parallel tool calls finishes at once.
import { describe, expect, it } from 'vitest';
import type { ConversationHandle } from '../src/client';
import { follow } from '../src/cli/follow';
import type { ConversationState, StateQueryArgs, StepRecord } from '../src/shared/contract';

/**
 * A conversation whose `state` query answers like the workflow's (steps after the cursor among the last
 * `keep`, and how many after it are gone); after each look the next burst of steps lands. The result
 * arrives together with the last burst, so the follower sees that burst only in its final look.
 */
function scripted(bursts: number[], keep = 20) {
  const all: StepRecord[] = [];
  const cursors: Array<number | undefined> = [];
  let settle!: (v: string) => void;
  const finished = new Promise<string>((resolve) => (settle = resolve));
  const handle = {
    id: 'conv-1',
    state(args?: StateQueryArgs): Promise<ConversationState> {
      const after = args?.stepsAfter;
      cursors.push(after);
      const kept = all.slice(-keep);
      const first = kept[0]?.step;
      const state = {
        steps: after === undefined ? kept.slice(-5) : kept.filter((s) => s.step > after),
        stepsMissed: after !== undefined && first !== undefined ? Math.max(0, first - after - 1) : 0,
        waitingFor: null,
        pendingQuestion: null,
        pendingApprovals: [],
      } as unknown as ConversationState;
      const burst = bursts[cursors.length - 1];
      for (let i = 0; i < (burst ?? 0); i++) {
        all.push({ step: all.length + 1, kind: 'tool', name: 'read_file', summary: `f${all.length + 1}.txt`, ok: true });
      }
      if (cursors.length === bursts.length) settle('the answer');
      return Promise.resolve(state);
    },
  } as unknown as ConversationHandle;
  return { handle, finished, cursors };
}

async function followed(bursts: number[], keep?: number) {
  const { handle, finished, cursors } = scripted(bursts, keep);
  const lines: string[] = [];
  const result = await follow(handle, finished, { log: (l) => lines.push(l), intervalMs: 1 });
  return { result, lines, cursors, stepNumbers: lines.flatMap((l) => /\[\s*(\d+)\]/.exec(l)?.[1] ?? []).map(Number) };
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('the step follower', () => {
  it('shows every step once, in order, also 8 that land between two looks and those after the result', async () => {
    const { result, stepNumbers, lines, cursors } = await followed([1, 8, 1]);
    expect(result).toBe('the answer');
    expect(stepNumbers).toEqual(upTo(10));
    expect(lines).toContain('  [  5] tool  read_file: f5.txt');
    expect(cursors.every((c) => c !== undefined)).toBe(true);
    expect(cursors.slice(0, 4)).toEqual([0, 0, 1, 9]); // the last look (after the result) shows step 10
  });

  it('counts the steps no longer kept in one line pointing at hermes inspect, then goes on', async () => {
    const { stepNumbers, lines } = await followed([1, 25, 2]);
    // After step 1, 25 steps land but only the last 20 (7-26) are kept: 2-6 are missed.
    expect(lines.filter((l) => l.includes('not shown'))).toEqual(['  (5 step(s) not shown; hermes inspect conv-1 has them all)']);
    expect(stepNumbers).toEqual([1, ...upTo(28).slice(6)]);
    expect(lines.findIndex((l) => l.includes('not shown'))).toBe(1);
  });

  it('passes on a failed result after its last look', async () => {
    const { handle } = scripted([3]);
    const lines: string[] = [];
    await expect(follow(handle, Promise.reject(new Error('boom')), { log: (l) => lines.push(l), intervalMs: 1 })).rejects.toThrow('boom');
    expect(lines.map((l) => /\[\s*(\d+)\]/.exec(l)?.[1])).toEqual(['1', '2', '3']);
  });
});
