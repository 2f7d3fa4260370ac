// Chat mode: the workflow stays open after a turn and takes the next user message from `send` updates,
// until an `end` signal or the idle timeout.
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { ConversationResult, TurnResult } from '../../shared/contract';
import { continueConversationAsNew, maybeContinueAsNew } from './continue-as-new';
import type { Conversation } from '../state/conversation-state';
import { deliverTurn } from '../delivery';
import { refreshMemoryAfterWrite } from './memory-recall';
import type { TurnOutcome } from './turn-outcome';
import { runTurn } from './turn';
import { idleUntil } from '../engine/upgrade';
import { subUsage } from '../rules/usage';

export async function runChat(c: Conversation): Promise<ConversationResult> {
  const lastTurn = c.chat.lastResult;
  let last: TurnOutcome = lastTurn ? { status: lastTurn.status, answer: lastTurn.answer } : { status: 'completed', answer: '' };
  // A prompt given at start is turn 1 (already in the messages); a turn cut by continue-as-new resumes here.
  if (c.chat.turnInProgress) last = await runOneTurn(c);
  const woken = () => c.chat.waiting > 0 || c.chat.ended;
  for (;;) {
    if (!woken()) {
      c.setStatus('idle', 'message');
      // Let the finished turn's `send` handler return first: continue-as-new waits for handlers.
      await condition(() => allHandlersFinished() || woken());
      if (!woken()) await maybeContinueAsNew(c);
      // Also ends when a newer build becomes current: the chat then moves to it (continue-as-new, upgrade.ts).
      const got = await idleUntil(woken, c.limits.idleTimeoutSec * 1000, () => continueConversationAsNew(c));
      if (!got) c.note('chat', `idle for ${c.limits.idleTimeoutSec} s: conversation ended`);
    }
    const next = c.chat.ended ? undefined : c.chat.next();
    if (next === undefined) {
      c.chat.end();
      return c.finish({ ...last, status: last.status === 'failed' ? 'failed' : 'completed' });
    }
    await refreshMemoryAfterWrite(c);
    c.beginTurn(next);
    last = await runOneTurn(c);
  }
}

async function runOneTurn(c: Conversation): Promise<TurnOutcome> {
  const startIteration = c.meter.iteration;
  const before = c.meter.usage;
  const outcome = await runTurn(c);
  const { totalTokens, promptTokens, completionTokens, costUsd } = subUsage(c.meter.usage, before);
  const result: TurnResult = {
    turn: c.meter.turn,
    status: outcome.status,
    answer: outcome.answer,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    iterations: c.meter.iteration - startIteration,
    usage: { promptTokens, completionTokens, totalTokens, costUsd },
  };
  // Before the `send` waiting for this turn returns: its result names the turn's delivery.
  c.chat.addResult(await deliverTurn(c, result, outcome.error));
  return outcome;
}
