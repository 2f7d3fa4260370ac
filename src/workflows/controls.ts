// Signals, updates and queries: how humans (client, CLI, stock `temporal` CLI) steer a running conversation.
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  answerUpdate,
  approveUpdate,
  contextQuery,
  endSignal,
  interruptSignal,
  sendUpdate,
  stateQuery,
} from '../shared/messages';
import { HermesStatus, HermesWaitingFor } from '../shared/search-attributes';
import type { InterruptArgs, TurnResult } from '../shared/types';
import type { Conversation, conversationWorkflow } from './conversation';
import { carriedState } from './state';
import { snapshot } from './view';

const CARRY_LIMIT_CHARS = 1_500_000;

export function registerHandlers(c: Conversation): void {
  setHandler(stateQuery, () => snapshot(c));
  setHandler(contextQuery, ({ version, from, to }) => c.contextSlice(version, from, to));

  setHandler(interruptSignal, (raw) => {
    // Signals have no validator and may come from the stock `temporal` CLI with any payload: a bare string is
    // the redirect message; fields of the wrong type are ignored rather than failing the workflow task.
    const args: InterruptArgs | undefined =
      typeof raw === 'string'
        ? { message: raw }
        : raw && typeof raw === 'object'
          ? {
              ...(typeof raw.message === 'string' ? { message: raw.message } : {}),
              ...(typeof raw.reason === 'string' ? { reason: raw.reason } : {}),
            }
          : undefined;
    const message = args?.message?.trim() ? args.message : undefined;
    if (c.input.mode === 'chat' && !c.turnRunning) {
      // Nothing runs in an idle chat: a message starts the next turn, a bare interrupt has nothing to stop.
      if (message && !c.ended) c.inbox.push(message);
      return;
    }
    // In task mode this may arrive before the loop starts (buffered in the run's first activation): the
    // loop applies it at its first check. Two redirects in a row keep both messages.
    const prev = c.pendingInterrupt?.message;
    const merged = prev && message ? `${prev}\n\n${message}` : (message ?? prev);
    c.pendingInterrupt = { ...(args?.reason ? { reason: args.reason } : {}), ...(merged ? { message: merged } : {}) };
    c.cancelStep();
  });

  setHandler(
    answerUpdate,
    ({ text }) => {
      const q = c.pendingQuestion!;
      c.questionAnswer = text;
      return { callId: q.callId };
    },
    {
      validator: (args) => {
        if (!c.pendingQuestion) throw new Error('no question is pending: nothing to answer');
        if (typeof args?.text !== 'string' || !args.text.trim()) throw new Error('answer text must not be empty');
      },
      description: 'Answers the pending clarify question: { text }',
    },
  );

  setHandler(
    approveUpdate,
    ({ callId, decision, remember }) => {
      c.approvalDecisions.set(callId, { decision, remember: Boolean(remember) });
      return { callId, decision };
    },
    {
      validator: (args) => {
        if (!c.pendingApprovals.length) throw new Error('no approval is pending');
        if (!c.pendingApprovals.some((a) => a.callId === args?.callId)) {
          throw new Error(`no pending approval for call "${args?.callId}" (pending: ${c.pendingApprovals.map((a) => a.callId).join(', ')})`);
        }
        if (args.decision !== 'approve' && args.decision !== 'deny') throw new Error('decision must be "approve" or "deny"');
        if (args.remember !== undefined && typeof args.remember !== 'boolean') throw new Error('remember must be true or false');
      },
      description: 'Approves or denies a pending tool call: { callId, decision: approve|deny, remember? }',
    },
  );

  setHandler(
    sendUpdate,
    async ({ text }) => {
      const ticket = c.turn + c.inbox.length + 1;
      c.inbox.push(text);
      if (c.turnRunning && c.input.busyPolicy === 'interrupt') {
        c.pendingInterrupt = { ...c.pendingInterrupt, reason: 'a new message arrived' };
        c.cancelStep();
      }
      await condition(() => c.turnResults.some((r) => r.turn === ticket) || c.ended);
      return c.turnResults.find((r) => r.turn === ticket) ?? endedTurn(ticket, c);
    },
    {
      validator: (args) => {
        if (c.input.mode !== 'chat') throw new Error('send needs a conversation started in chat mode');
        if (c.ended) throw new Error('the conversation has ended');
        if (typeof args?.text !== 'string' || !args.text.trim()) throw new Error('message text must not be empty');
        if (c.input.busyPolicy === 'reject' && (c.turnRunning || c.inbox.length)) {
          throw new Error('a turn is running; busyPolicy is reject: send again when it has finished');
        }
      },
      description: 'Chat mode: sends a user message and returns that turn\'s answer: { text }',
    },
  );

  setHandler(endSignal, () => {
    c.ended = true;
  });

  // Workflow cancellation reaches the step in flight through the scope tree; remember it for the clean-up.
  CancellationScope.current().cancelRequested.catch(() => {
    c.cancelRequested = true;
  });
}

function endedTurn(turn: number, c: Conversation): TurnResult {
  return { turn, status: 'cancelled', answer: '', reason: 'conversation ended before this message was handled', iterations: 0, usage: c.usage };
}

/** HermesStatus / HermesWaitingFor make conversations filterable in the Web UI and `temporal workflow list`. */
export function publishStatus(c: Conversation): void {
  if (c.input.searchAttributes === false) return;
  upsertSearchAttributes([
    { key: HermesStatus, value: c.status },
    { key: HermesWaitingFor, value: c.waitingFor },
  ]);
}

/**
 * Whether to continue-as-new now: Temporal suggests it (or a history backstop is hit), the run has made
 * progress, and no update handler is mid-flight (a chat `send` waiting for its turn keeps the conversation
 * in this run until the turn ends). Synchronous, so the common "no" costs no promise in the workflow.
 */
export function shouldContinueAsNew(c: Conversation): boolean {
  // A run must make progress first: the carried state alone can be large enough to trip the limits, and a
  // run that continues-as-new at once would loop forever.
  if (c.modelCalls === c.modelCallsAtRunStart) return false;
  const info = workflowInfo();
  const grown = info.historySize - c.historyBytesAtRunStart;
  const over = info.historyLength >= c.limits.maxHistoryEvents || grown >= c.limits.maxHistoryBytes;
  return (info.continueAsNewSuggested || over) && allHandlersFinished();
}

/** Continues as new, carrying the whole state forward (messages, budgets used, usage, todo, approvals…). */
export async function continueConversationAsNew(c: Conversation): Promise<never> {
  // The whole context travels in one payload (server limit 2 MiB): shed old tool outputs first if needed.
  if (JSON.stringify(c.messages).length > CARRY_LIMIT_CHARS) {
    c.pruneOldToolOutputs('pruned old tool outputs to fit the state carried to the next run');
  }
  return continueAsNew<typeof conversationWorkflow>({ ...c.input, carried: carriedState(c) });
}

export async function maybeContinueAsNew(c: Conversation): Promise<void> {
  if (shouldContinueAsNew(c)) await continueConversationAsNew(c);
}
