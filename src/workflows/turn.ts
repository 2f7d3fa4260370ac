// The loop of one turn: each model step's result (answer / tools / again / fail) is switched on
// exhaustively; budgets, interrupts and the repetition check are applied between steps.
import { CancelledFailure } from '@temporalio/workflow';
import { dueWarnings, exhausted } from './budget';
import { maybeCompress } from './compress';
import { continueConversationAsNew, shouldContinueAsNew } from './continue-as-new';
import { STOPPED, type Stopped, type TurnOutcome } from './outcomes';
import { grace, modelStep } from './model-step';
import { graceRequest, interruptedAnswer } from './prompts';
import { runToolCalls } from './run-tools';
import type { Conversation } from './state';
import { traceOutcome } from './trace';

/** One turn: model and tool steps until the model answers or something stops it. */
export async function runTurn(c: Conversation): Promise<TurnOutcome> {
  c.turnInProgress = true;
  c.setStatus('running');
  try {
    // A conversation-wide budget used up in an earlier turn: say so without spending more.
    const spent = exhausted(c.budgetInput());
    if (spent && c.iteration === c.turnStartIteration && !spent.startsWith('iterations')) {
      return { status: 'budget_exhausted', answer: `The conversation's budget is used up (${spent}).` };
    }
    // A stop (interrupt, time budget) ends a stretch of steps; the next stretch applies it in a fresh scope.
    for (;;) {
      const outcome = await c.stoppable(() => steps(c));
      if (outcome !== STOPPED) return outcome;
    }
  } finally {
    c.turnInProgress = false;
    // An interrupt that arrived too late for this turn (e.g. during the grace call) must not hit the next
    // one; a redirect message it carried becomes the next chat message instead of being lost.
    const late = c.pendingInterrupt;
    c.pendingInterrupt = undefined;
    if (late?.message && c.input.mode === 'chat') c.inbox.unshift(late.message);
  }
}

/** Steps until the turn ends (an outcome) or a stop cuts this stretch (STOPPED). */
async function steps(c: Conversation): Promise<TurnOutcome | Stopped> {
  for (;;) {
    if (c.cancelRequested) throw new CancelledFailure('conversation cancelled');
    if (c.stretchCut()) return STOPPED;
    if (c.pendingInterrupt) {
      const stop = await takeInterrupt(c);
      if (stop) return stop;
    }
    const budget = c.budgetInput();
    const out = exhausted(budget);
    if (out) {
      await traceOutcome(c, `budget used up (${out}): asking the model for a final summary`);
      return grace(c, 'budget_exhausted', graceRequest('budget', out));
    }
    for (const w of dueWarnings(budget, c.warned)) {
      c.warned.push(w.kind);
      c.messages.push({ role: 'user', content: w.text });
      c.note('budget', `warned the model: ${w.kind} at 80%`);
    }
    if (shouldContinueAsNew(c)) await continueConversationAsNew(c);
    await maybeCompress(c);
    // A cut model step throws its cancellation out of the stretch (stoppable turns it into STOPPED); tool
    // calls cut short become results, and the check at the top ends the stretch.
    const outcome = await modelStep(c);
    switch (outcome.kind) {
      case 'answer':
        return { status: 'completed', answer: outcome.text };
      case 'again':
        continue;
      case 'invalid':
        await traceOutcome(c, `stopped: ${outcome.detail}`);
        return { ...(await grace(c, 'stopped_repeating', graceRequest('invalid', outcome.detail))), reason: 'InvalidToolCalls' };
      case 'fail':
        return { status: 'failed', answer: c.lastAssistantText(), reason: outcome.reason, error: outcome.error };
      case 'tools': {
        const verdict = await runToolCalls(c, outcome.calls);
        if (!verdict.stop) break;
        const { why, detail } = verdict.stop;
        await traceOutcome(c, why === 'repeating' ? `stopped: the model repeats itself (${detail})` : `stopped: ${detail}`);
        if (why === 'repeating') return grace(c, 'stopped_repeating', graceRequest('repeating', detail));
        return { ...(await grace(c, 'stopped_repeating', graceRequest('invalid', detail))), reason: 'InvalidToolCalls' };
      }
      default: {
        const never: never = outcome;
        throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
      }
    }
  }
}

/** Applies a pending interrupt: redirect (new user message, go on) or end the turn as interrupted. */
async function takeInterrupt(c: Conversation): Promise<TurnOutcome | undefined> {
  const i = c.pendingInterrupt!;
  c.pendingInterrupt = undefined;
  c.note('interrupt', i.message ? `redirected: ${i.message.slice(0, 80)}` : `stopped${i.reason ? `: ${i.reason}` : ''}`);
  const cut = c.lastCut ? `; ${c.lastCut} was cut short` : '';
  c.lastCut = undefined;
  await traceOutcome(
    c,
    i.message
      ? `interrupted${i.reason ? ` (${i.reason})` : ''}${cut}: going on with the new message "${i.message.slice(0, 80)}"`
      : `interrupted${i.reason ? ` (${i.reason})` : ''}${cut}: the turn ended`,
  );
  if (i.message) {
    c.messages.push({ role: 'user', content: i.message });
    return undefined;
  }
  return { status: 'interrupted', answer: interruptedAnswer(c.lastAssistantText(), i.reason), reason: i.reason };
}
