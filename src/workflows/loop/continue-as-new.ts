// Continue-as-new: a long conversation moves to a fresh run (and a fresh history) before the history grows
// past what the server suggests, carrying its whole state — also in the middle of a turn.
import { allHandlersFinished, makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import { localActivities } from '../engine/activity-options';
import { logEvent } from '../engine/observe';
import type { ConversationWorkflow } from '../../shared/contract';
import type { Conversation } from '../state/conversation-state';
import { continueAsNewOptions } from '../engine/upgrade';
import { HANDOFF_MEMO, handoffOf } from '../state/handoff';

// What one payload may hold inline (server limit 2 MiB); past it only a worker with the payload store can carry all.
const CARRY_LIMIT_CHARS = 1_500_000;

/**
 * Whether to continue-as-new now: Temporal suggests it (or a history backstop is hit), the run has made
 * progress, and no update handler is mid-flight (a chat `send` waiting for its turn keeps the conversation
 * in this run until the turn ends). Synchronous, so the common "no" costs no promise in the workflow.
 */
export function shouldContinueAsNew(c: Pick<Conversation, 'limits' | 'meter'>): boolean {
  // A run must make progress first: the carried state alone can be large enough to trip the limits, and a
  // run that continues-as-new at once would loop forever.
  if (c.meter.modelCalls === c.meter.modelCallsAtRunStart) return false;
  const info = workflowInfo();
  const grown = info.historySize - c.meter.historyBytesAtRunStart;
  const over = info.historyLength >= c.limits.maxHistoryEvents || grown >= c.limits.maxHistoryBytes;
  return (info.continueAsNewSuggested || over) && allHandlersFinished();
}

/**
 * Continues as new with the checked input (limits complete, so a later change of a default cannot change
 * what the next run decides) and the carried state as the second argument.
 */
export async function continueConversationAsNew(c: Conversation): Promise<never> {
  // The whole context travels in one payload. With the payload store (src/storage) the history keeps a reference
  // and nothing is dropped; without it, old tool outputs are shed to fit the server's 2 MiB — said in a note.
  // Asked at every continue-as-new (one marker event), as the next run's details say where its state went.
  const store = await localActivities.payloadStore();
  if (JSON.stringify(c.transcript.messages).length > CARRY_LIMIT_CHARS && !store.stored && c.transcript.pruneOldToolOutputs()) {
    c.note('context', 'pruned old tool outputs to fit the state carried to the next run (no payload store: HERMES_PAYLOAD_STORE)');
  }
  c.publish({ type: 'continued' });
  const carried = c.carry();
  const step = c.board.steps.at(-1)?.step ?? 0;
  const handoff = handoffOf({ step, iteration: c.meter.iteration, messages: c.transcript.length, chars: JSON.stringify(carried).length }, store);
  logEvent('continue_as_new', 'continuing as new', { modelCalls: c.meter.modelCalls, historyLength: workflowInfo().historyLength });
  // On a newer target build, the next run starts there (AUTO_UPGRADE), else it stays pinned to this one. The memo
  // (the readable session-search summary, and now the handoff) is handed over explicitly: left unset, sdk-core
  // fills it with the memo the run *started* with, not the upserted one (it does take the current search attributes).
  const memo = { ...workflowInfo().memo, [HANDOFF_MEMO]: handoff };
  return makeContinueAsNewFunc<ConversationWorkflow>({ ...continueAsNewOptions(), memo })(c.input, carried);
}

export async function maybeContinueAsNew(c: Conversation): Promise<void> {
  if (shouldContinueAsNew(c)) await continueConversationAsNew(c);
}
