// When a turn must stop short of an answer: one list of conditions, evaluated by the turn after every step (the
// way vercel/ai composes `stopWhen`). Each reads the step's result and the loop guards (src/workflows/state/
// loop-guards.ts), the counters that carry over steps.
import { exhausted } from './budget';
import { MAX_INVALID_STREAK } from './limits';
import type { Conversation } from '../state/conversation-state';
import type { LoopGuards } from '../state/loop-guards';
import type { StepResult } from '../loop/step-result';

const EMPTY_REPLIES_LIMIT = 3;

/** How a turn stops: failed outright, or a forced stop that asks the model for a final summary first. */
export type StopVerdict =
  | { kind: 'fail'; reason: string; error: string }
  | { kind: 'summarise'; status: 'budget_exhausted' | 'stopped_repeating'; why: 'budget' | 'repeating' | 'invalid'; detail: string; trace: string };

/** What the stop conditions read of a conversation: the loop guards and the budgets. */
type Guarded = Pick<Conversation, 'guards' | 'budgetInput'>;

type Condition = (c: Guarded, step: StepResult, counted: ReturnType<LoopGuards['count']>) => StopVerdict | undefined;

const emptyReplies: Condition = (c) =>
  c.guards.emptyStreak >= EMPTY_REPLIES_LIMIT
    ? { kind: 'fail', reason: 'EmptyResponse', error: `the model returned an empty response ${EMPTY_REPLIES_LIMIT} times in a row` }
    : undefined;

const invalidCalls: Condition = (c, step) => {
  const streak = c.guards.invalidStreak;
  if (streak < MAX_INVALID_STREAK || (step.kind !== 'tools' && step.kind !== 'unreadable')) return undefined;
  const detail =
    step.kind === 'unreadable'
      ? `${streak} tool calls in a row could not run, the last one unreadable`
      : `${streak} tool calls in a row could not run, the last one "${step.lastName}"`;
  return { kind: 'summarise', status: 'stopped_repeating', why: 'invalid', detail, trace: `stopped: ${detail}` };
};

const repeating: Condition = (_c, _step, counted) =>
  counted.stopRepeating
    ? {
        kind: 'summarise',
        status: 'stopped_repeating',
        why: 'repeating',
        detail: counted.stopRepeating,
        trace: `stopped: the model repeats itself (${counted.stopRepeating})`,
      }
    : undefined;

const budgetUsedUp: Condition = (c) => {
  const out = exhausted(c.budgetInput());
  return out
    ? {
        kind: 'summarise',
        status: 'budget_exhausted',
        why: 'budget',
        detail: out,
        trace: `budget used up (${out}): asking the model for a final summary`,
      }
    : undefined;
};

/** In order: the first that holds stops the turn. */
export const STOP_WHEN: readonly Condition[] = [emptyReplies, invalidCalls, repeating, budgetUsedUp];

/**
 * Counts the step, then the first stop condition that holds (and the loop warning to give when none does).
 * Without a step (a stretch of steps begins, e.g. after the time budget cut one short) nothing is counted.
 */
export function evaluateStop(c: Guarded, step?: StepResult): { stop?: StopVerdict; warnLooping?: string } {
  const counted = step ? c.guards.count(step) : {};
  step ??= { kind: 'none' };
  for (const when of STOP_WHEN) {
    const stop = when(c, step, counted);
    if (stop) return { stop };
  }
  return counted.warnLooping ? { warnLooping: counted.warnLooping } : {};
}
