// Chat mode: the workflow stays open after a turn and takes the next user message from `send` updates,
// until an `end` signal or the idle timeout.
import { allHandlersFinished, condition, patched } from '@temporalio/workflow';
import type { ConversationResult, TurnResult } from '../shared/contract';
import { continueConversationAsNew, maybeContinueAsNew } from './continue-as-new';
import { refreshMemoryAfterWrite } from './memory-recall';
import type { TurnOutcome } from './outcomes';
import type { Conversation } from './state';
import { runTurn } from './turn';
import { idleUntil } from './upgrade';

const TURNS_KEPT = 20;
/** Patch id: chat continues-as-new between turns once the finished turn's `send` handler has returned. */
export const CHAT_CAN_AFTER_SEND = 'chat-continue-as-new-after-send';

export async function runChat(c: Conversation): Promise<ConversationResult> {
  const lastTurn = c.turnResults[c.turnResults.length - 1];
  let last: TurnOutcome = lastTurn ? { status: lastTurn.status, answer: lastTurn.answer } : { status: 'completed', answer: '' };
  // A prompt given at start is turn 1 (already in the messages); a turn cut by continue-as-new resumes here.
  if (c.turnInProgress) last = await runOneTurn(c);
  for (;;) {
    if (c.inbox.length === 0 && !c.ended) {
      if (patched(CHAT_CAN_AFTER_SEND)) {
        c.setStatus('idle', 'message');
        // Let the finished turn's `send` handler return first: continue-as-new waits for handlers.
        await condition(() => allHandlersFinished() || c.inbox.length > 0 || c.ended);
        if (c.inbox.length === 0 && !c.ended) await maybeContinueAsNew(c);
      } else {
        // Before the patch: the check ran while the `send` handler was still open, so it never fired.
        await maybeContinueAsNew(c);
        c.setStatus('idle', 'message');
      }
      const got = await idleUntil(
        () => c.inbox.length > 0 || c.ended,
        c.limits.idleTimeoutSec * 1000,
        () => continueConversationAsNew(c),
      );
      if (!got) c.note('chat', `idle for ${c.limits.idleTimeoutSec} s: conversation ended`);
    }
    if (c.ended || c.inbox.length === 0) {
      c.ended = true;
      return c.finish({ ...last, status: last.status === 'failed' ? 'failed' : 'completed' });
    }
    await refreshMemoryAfterWrite(c);
    c.beginTurn(c.inbox.shift()!);
    last = await runOneTurn(c);
  }
}

async function runOneTurn(c: Conversation): Promise<TurnOutcome> {
  const startIteration = c.iteration;
  const before = c.usage;
  const outcome = await runTurn(c);
  const result: TurnResult = {
    turn: c.turn,
    status: outcome.status,
    answer: outcome.answer,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    iterations: c.iteration - startIteration,
    usage: {
      promptTokens: c.usage.promptTokens - before.promptTokens,
      completionTokens: c.usage.completionTokens - before.completionTokens,
      totalTokens: c.usage.totalTokens - before.totalTokens,
      costUsd: c.usage.costUsd - before.costUsd,
    },
  };
  c.turnResults.push(result);
  if (c.turnResults.length > TURNS_KEPT) c.turnResults.splice(0, c.turnResults.length - TURNS_KEPT);
  return outcome;
}
