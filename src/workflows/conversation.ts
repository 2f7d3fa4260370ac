// The agent loop as a workflow: the model decides one step, the runtime executes it, the result goes back to
// the model, until it answers. Deterministic code only: all I/O happens in activities. This entry checks the
// input (start.ts) and the worker (a workspace, the sandbox, its catalog tools) and hands over: chat.ts (chat
// mode) → turn.ts (one turn) → model-step.ts / run-tools.ts, over the state in conversation-state.ts.
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { ConversationInput, ConversationResult } from '../shared/contract';
import { DEFAULT_LIMITS } from '../shared/defaults';
import { conversationFailure } from '../shared/failed-result';
import { runChat } from './loop/chat';
import { Conversation, type RunConfig } from './state/conversation-state';
import { deliverResult, webhookOf } from './delivery';
import { registerHandlers } from './loop/message-handlers';
import { logEvent } from './engine/observe';
import { learnAttributes, prepare } from './loop/prepare';
import { isRecord, readStart, type Start } from './loop/start';
import { runTurn } from './loop/turn';

/**
 * `input` is whatever a client sent; `carried` is the state continue-as-new hands to the next run. Nothing in
 * either can fail a workflow task: a bad input ends the conversation at once as `failed` with reason `BadInput`,
 * naming the field.
 */
export async function conversationWorkflow(input: unknown, carried?: unknown): Promise<ConversationResult> {
  const start = readStart(input, carried);
  if ('error' in start) return ended(await badInput(input, start.error));
  const c = new Conversation(start.config, start.carried);
  registerHandlers(c);
  logEvent('start', start.carried ? 'conversation continued in a new run' : 'conversation started', {
    mode: c.input.mode ?? 'run',
    ...(c.input.model ? { profile: c.input.model } : {}),
    ...(c.input.parent ? { parent: c.input.parent.workflowId } : {}),
  });
  let result: ConversationResult;
  try {
    result = await run(c, start);
  } catch (err) {
    if (isCancellation(err)) {
      // Cancelled before the start's answer: which attributes the status may set is asked even so.
      if (c.board.learning) await CancellationScope.nonCancellable(() => learnAttributes(c));
      c.board.cancelled();
      // A task run's webhook hears of the cancel too (a chat's webhook has had every finished turn).
      if (c.input.mode !== 'chat' && webhookOf(c.input)) await deliverResult(c, c.finish({ status: 'cancelled', answer: '' }));
      else c.publish({ type: 'status', status: 'cancelled' });
    }
    throw err;
  }
  return ended(result);
}

/**
 * A failed conversation is a FAILED workflow, its reason the failure type and its result in the details
 * (src/shared/failed-result.ts). The other endings carry an answer and complete: `budget_exhausted`,
 * `stopped_repeating` and `interrupted` are COMPLETED with HermesStatus saying which (docs/design-notes.md).
 */
function ended(result: ConversationResult): ConversationResult {
  if (result.status === 'failed') throw conversationFailure(result);
  return result;
}

async function run(c: Conversation, start: Extract<Start, { config: RunConfig }>): Promise<ConversationResult> {
  const refused = start.carried ? undefined : await prepare(c, start);
  if (refused) return deliverResult(c, c.finish({ status: 'failed', answer: '', ...refused }));
  if (!start.carried && c.input.prompt?.trim()) c.publish({ type: 'turn.started', text: c.input.prompt }, undefined);
  c.stop.startClock(c.meter.startedAtMs, c.limits.maxDurationSec);
  if (start.config.input.mode === 'chat') return runChat(c);
  return deliverResult(c, c.finish(await runTurn(c)));
}

/** Ends a conversation whose input could not be read: its state query and result say why. */
async function badInput(raw: unknown, error: string): Promise<ConversationResult> {
  const attributesOff = isRecord(raw) && raw.searchAttributes === false;
  const input: ConversationInput & RunConfig['input'] = { prompt: '', limits: DEFAULT_LIMITS, ...(attributesOff ? { searchAttributes: false } : {}) };
  const c = new Conversation({ input, tools: [] });
  registerHandlers(c);
  await learnAttributes(c);
  return c.finish({ status: 'failed', answer: '', reason: 'BadInput', error });
}
