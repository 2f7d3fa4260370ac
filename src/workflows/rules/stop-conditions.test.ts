// When a turn stops short of an answer (STOP_WHEN): empty replies, calls that cannot run, a repeated call, a
// used-up budget; which one wins when several hold, and the loop warning when none does.
import { describe, expect, it } from 'vitest';
import type { Limits, Usage } from '../../shared/contract';
import { DEFAULT_LIMITS } from '../../shared/defaults';
import type { StepResult } from '../loop/step-result';
import type { Conversation } from '../state/conversation-state';
import type { BudgetInput } from './budget';
import { MAX_INVALID_STREAK } from './limits';
import { LoopGuards } from '../state/loop-guards';
import { evaluateStop } from './stop-conditions';
import { ZERO_USAGE } from './usage';

/** The parts of a conversation the stop conditions read: its loop guards (real) and its budget input. */
function conversation(limits: Partial<Limits> = {}, used: { iterations?: number; usage?: Partial<Usage> } = {}) {
  const budget: BudgetInput = {
    limits: { ...DEFAULT_LIMITS, maxIterations: 0, maxTokens: 0, maxCostUsd: 0, maxDurationSec: 0, ...limits },
    usage: { ...ZERO_USAGE, ...used.usage },
    iterations: used.iterations ?? 0,
    elapsedSec: 0,
  };
  return { guards: new LoopGuards(undefined), budgetInput: () => budget } satisfies Pick<Conversation, 'guards' | 'budgetInput'>;
}

const EMPTY: StepResult = { kind: 'empty' };
const UNREADABLE: StepResult = { kind: 'unreadable' };
/** A tool round: per call whether it could run, the calls that ran with their results, and the last call's name. */
const tools = (valid: boolean[], ran: Array<[name: string, content: string]> = [], lastName = 'read_file'): StepResult => ({
  kind: 'tools',
  valid,
  ran: ran.map(([name, content]) => ({ name, argsKey: '{"path":"a.txt"}', content, label: `${name} a.txt` })),
  lastName,
});
const readA = tools([true], [['read_file', 'hello']]);

/** Steps in order; the verdict after each. */
const verdicts = (c: ReturnType<typeof conversation>, steps: StepResult[]) => steps.map((s) => evaluateStop(c, s));

describe('evaluateStop', () => {
  it('lets ordinary steps go on', () => {
    const c = conversation();
    expect(verdicts(c, [readA, tools([true], [['list_dir', 'a.txt']]), EMPTY, UNREADABLE])).toEqual([{}, {}, {}, {}]);
  });

  it('fails the turn at the third empty reply in a row; anything else in between starts the count again', () => {
    const c = conversation();
    expect(verdicts(c, [EMPTY, EMPTY, readA, EMPTY, EMPTY]).every((v) => !v.stop)).toBe(true);
    expect(evaluateStop(c, EMPTY).stop).toEqual({
      kind: 'fail',
      reason: 'EmptyResponse',
      error: 'the model returned an empty response 3 times in a row',
    });
  });

  it(`asks for a summary after ${MAX_INVALID_STREAK} calls in a row that could not run, naming the last`, () => {
    const c = conversation();
    // Two rounds of two bad calls: four in a row, then a good one resets the streak.
    expect(verdicts(c, [tools([false, false]), tools([false, false]), tools([false, true])]).every((v) => !v.stop)).toBe(true);
    expect(verdicts(c, [tools([false, false]), tools([false, false])]).every((v) => !v.stop)).toBe(true);
    expect(evaluateStop(c, tools([false], [], 'reed_file')).stop).toEqual({
      kind: 'summarise',
      status: 'stopped_repeating',
      why: 'invalid',
      detail: `${MAX_INVALID_STREAK} tool calls in a row could not run, the last one "reed_file"`,
      trace: `stopped: ${MAX_INVALID_STREAK} tool calls in a row could not run, the last one "reed_file"`,
    });
  });

  it('counts unreadable replies in the invalid streak and says so when one is the last', () => {
    const c = conversation();
    verdicts(c, [tools([false, false]), UNREADABLE, UNREADABLE]);
    expect(evaluateStop(c, UNREADABLE).stop).toMatchObject({
      why: 'invalid',
      detail: `${MAX_INVALID_STREAK} tool calls in a row could not run, the last one unreadable`,
    });
  });

  it('stops for the invalid streak only at a step with calls: an empty reply or a new stretch adds nothing to it', () => {
    const c = conversation();
    c.guards.count(tools(Array<boolean>(MAX_INVALID_STREAK).fill(false)));
    expect(evaluateStop(c)).toEqual({});
    expect(evaluateStop(c, EMPTY)).toEqual({});
    expect(evaluateStop(c, UNREADABLE).stop).toMatchObject({ why: 'invalid' });
  });

  it('warns about a repeated call at the third time and stops it at the fourth', () => {
    const c = conversation();
    expect(verdicts(c, [readA, readA, readA])).toEqual([{}, {}, { warnLooping: 'read_file' }]);
    expect(evaluateStop(c, readA).stop).toEqual({
      kind: 'summarise',
      status: 'stopped_repeating',
      why: 'repeating',
      detail: 'read_file a.txt',
      trace: 'stopped: the model repeats itself (read_file a.txt)',
    });
  });

  it('does not count a call as repeated when its result changed', () => {
    const c = conversation();
    const reads = ['v1', 'v2', 'v3', 'v4'].map((content) => tools([true], [['read_file', content]]));
    expect(verdicts(c, reads)).toEqual([{}, {}, {}, {}]);
  });

  it('asks for a summary when a budget is used up, also before any step of a stretch was counted', () => {
    const c = conversation({ maxTokens: 1_000 }, { usage: { totalTokens: 1_000 } });
    const stop = { kind: 'summarise', status: 'budget_exhausted', why: 'budget', detail: 'tokens: 1000 of 1000' };
    expect(evaluateStop(c).stop).toMatchObject(stop);
    expect(evaluateStop(c, readA).stop).toMatchObject({
      ...stop,
      trace: 'budget used up (tokens: 1000 of 1000): asking the model for a final summary',
    });
    expect(evaluateStop(conversation({ maxTokens: 1_000 }, { usage: { totalTokens: 999 } }), readA)).toEqual({});
  });

  it('counts nothing without a step', () => {
    const c = conversation();
    verdicts(c, [EMPTY, EMPTY]);
    for (let i = 0; i < 5; i++) expect(evaluateStop(c)).toEqual({});
    expect(c.guards.emptyStreak).toBe(2);
  });

  it('takes the first condition that holds: empty replies, invalid calls, repetition, then the budget', () => {
    // Empty replies fail the turn even with the budget used up.
    const spent = conversation({ maxIterations: 2 }, { iterations: 2 });
    expect(verdicts(spent, [EMPTY, EMPTY, EMPTY]).at(-1)?.stop).toMatchObject({ kind: 'fail', reason: 'EmptyResponse' });
    // A round with a fourth repeat: it stops as repeating unless its calls also end an invalid streak. The
    // streak is counted call by call, so a good call after bad ones ends it.
    const repeatFirst = conversation();
    verdicts(repeatFirst, [readA, readA, readA, tools([false, false, false, false])]);
    expect(evaluateStop(repeatFirst, tools([false, true], [['read_file', 'hello']])).stop).toMatchObject({ why: 'repeating' });
    const invalidFirst = conversation();
    verdicts(invalidFirst, [readA, readA, readA]);
    const fiveBad = Array<boolean>(MAX_INVALID_STREAK).fill(false);
    expect(evaluateStop(invalidFirst, tools([true, ...fiveBad], [['read_file', 'hello']])).stop).toMatchObject({ why: 'invalid' });
    // Repetition before the budget; and a stop replaces the loop warning.
    const repeatSpent = conversation({ maxIterations: 2 }, { iterations: 2 });
    verdicts(repeatSpent, [readA, readA, readA]);
    expect(evaluateStop(repeatSpent, readA).stop).toMatchObject({ why: 'repeating' });
    const warnedSpent = conversation({ maxIterations: 2 }, { iterations: 2 });
    const third = verdicts(warnedSpent, [readA, readA, readA]).at(-1);
    expect(third?.stop).toMatchObject({ why: 'budget' });
    expect(third).not.toHaveProperty('warnLooping');
  });
});
