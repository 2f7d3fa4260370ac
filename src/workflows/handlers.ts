// Signals, updates and queries: how humans (client, CLI, stock `temporal` CLI, Web UI) steer a running
// conversation. Every argument is parsed with the contract's schemas: an update with bad arguments is
// rejected by its validator (nothing is recorded), a signal — which has no validator — is read leniently.
import { CancellationScope, condition, log, setHandler } from '@temporalio/workflow';
import {
  answerSchema,
  approveSchema,
  endSchema,
  interruptSchema,
  parseArgs,
  sendSchema,
  stateQueryArgsSchema,
  type InterruptArgs,
  type TurnResult,
} from '../shared/contract';
import {
  answerUpdate,
  approveFromParentSignal,
  approveUpdate,
  childApprovalsSignal,
  childProgressSignal,
  contextQuery,
  endSignal,
  interruptSignal,
  sendUpdate,
  stateQuery,
  toolsQuery,
} from '../shared/messages';
import { childProgressSchema, contextQueryArgsSchema } from '../shared/wire';
import { allPendingApprovals, approvalTarget, decide, onApproveFromParent, onChildApprovals, routeApproval } from './child-approvals';
import { childStatus } from './delegate';
import type { Conversation } from './state';
import { rejecting } from './validators';
import { snapshot } from './view';

export function registerHandlers(c: Conversation): void {
  setHandler(stateQuery, (raw) => snapshot(c, parseArgs(stateQueryArgsSchema(), raw, 'state query arguments')), {
    description: 'Live state: status, iteration, budgets left, usage, todo, pending question and approvals, steps. Optional { stepsAfter: N }',
  });
  setHandler(contextQuery, (raw) => context(c, raw), {
    description:
      'The messages the model sees. Internal (the model activity reads { version, from, to }); without arguments, the count and the last 10',
  });
  setHandler(toolsQuery, () => c.toolList ?? null, {
    description: "The worker's custom, HTTP and MCP tools this conversation recorded at its start (names, descriptions, JSON schemas)",
  });

  setHandler(interruptSignal, (raw) => interrupt(c, readInterrupt(raw)), {
    description: 'Stops the step in flight: { reason?, message? } or a bare string; with a message the loop goes on with it',
  });

  setHandler(
    answerUpdate,
    (raw) => {
      c.questionAnswer = answerSchema().parse(raw).text;
      return { callId: c.pendingQuestion!.callId };
    },
    {
      validator: rejecting((raw) => {
        if (!c.pendingQuestion) throw new Error('no question is pending: nothing to answer');
        parseArgs(answerSchema(), raw, 'answer: expected {"text": "..."}');
      }),
      description: 'Answers the pending clarify question: { text }',
    },
  );

  setHandler(
    approveUpdate,
    (raw) => {
      const args = approveSchema().parse(raw);
      const target = approvalTarget(c, args);
      if (!target.own) return routeApproval(target, args);
      decide(c, args);
      return { callId: args.callId, decision: args.decision };
    },
    {
      validator: rejecting((raw) => {
        if (!allPendingApprovals(c).length) throw new Error('no approval is pending');
        const args = parseArgs(
          approveSchema(),
          raw,
          'approval: expected {"callId": "...", "decision": "approve"|"deny", "remember"?: boolean, "workflowId"?: "..."}',
        );
        approvalTarget(c, args);
      }),
      description:
        "Approves or denies a pending tool call, this conversation's or a sub-agent's it lists: { callId, decision: approve|deny, remember?, workflowId? }",
    },
  );

  setHandler(
    sendUpdate,
    async (raw) => {
      const ticket = c.turn + c.inbox.length + 1;
      c.inbox.push(sendSchema().parse(raw).text);
      if (c.turnInProgress && c.input.busyPolicy === 'interrupt') {
        c.pendingInterrupt = { ...c.pendingInterrupt, reason: 'a new message arrived' };
        c.cancelStep();
      }
      await condition(() => c.turnResults.some((r) => r.turn === ticket) || c.ended);
      return c.turnResults.find((r) => r.turn === ticket) ?? endedTurn(ticket, c);
    },
    {
      validator: rejecting((raw) => {
        if (c.input.mode !== 'chat') throw new Error('send needs a conversation started in chat mode');
        if (c.ended) throw new Error('the conversation has ended');
        parseArgs(sendSchema(), raw, 'message: expected {"text": "..."}');
        if (c.input.busyPolicy === 'reject' && (c.turnInProgress || c.inbox.length)) {
          throw new Error('a turn is running; busyPolicy is reject: send again when it has finished');
        }
      }),
      description: "Chat mode: sends a user message and returns that turn's answer: { text }",
    },
  );

  setHandler(
    childProgressSignal,
    (raw) => {
      const r = childProgressSchema().safeParse(raw);
      if (r.success) c.childReport({ ...r.data, status: childStatus(r.data.status) });
    },
    { description: "Internal: a sub-agent's totals so far (usage, model calls, iteration), counted in this conversation's budgets" },
  );

  setHandler(childApprovalsSignal, (raw) => onChildApprovals(c, raw), {
    description: "Internal: the approvals a sub-agent's subtree waits for, listed in this conversation's state",
  });
  setHandler(approveFromParentSignal, (raw) => onApproveFromParent(c, raw), {
    description: "Internal: the parent passes on a decision for a pending approval (the approve update's arguments)",
  });

  setHandler(
    endSignal,
    (raw) => {
      const r = endSchema().safeParse(raw);
      if (!r.success) log.warn('end signal with unreadable arguments: ending anyway', { error: r.error.message });
      c.ended = true;
    },
    { description: 'Chat mode: ends the conversation: { reason? }' },
  );

  // Workflow cancellation reaches the step in flight through the scope tree; remember it for the clean-up.
  CancellationScope.current().cancelRequested.catch(() => {
    c.cancelRequested = true;
  });
}

/**
 * Signals have no validator and may come from the stock `temporal` CLI with any payload: a bare string is the
 * redirect message; arguments that do not parse still interrupt (that much the sender surely meant).
 */
function readInterrupt(raw: unknown): InterruptArgs {
  const r = interruptSchema().safeParse(raw);
  if (r.success) return r.data;
  log.warn('interrupt signal with unreadable arguments: interrupting without a message', { error: r.error.message });
  return {};
}

function interrupt(c: Conversation, args: InterruptArgs): void {
  const message = args.message?.trim() ? args.message : undefined;
  if (c.input.mode === 'chat' && !c.turnInProgress) {
    // Nothing runs in an idle chat: a message starts the next turn, a bare interrupt has nothing to stop.
    if (message && !c.ended) c.inbox.push(message);
    return;
  }
  // In task mode this may arrive before the loop starts (buffered in the run's first activation): the loop
  // applies it at its first check. Two redirects in a row keep both messages.
  const prev = c.pendingInterrupt?.message;
  const merged = prev && message ? `${prev}\n\n${message}` : (message ?? prev);
  c.pendingInterrupt = { ...(args.reason ? { reason: args.reason } : {}), ...(merged ? { message: merged } : {}) };
  c.cancelStep();
}

/** The model activity asks for exact slices; a person (the Web UI's Queries tab) asks with no arguments. */
function context(c: Conversation, raw: unknown) {
  const r = contextQueryArgsSchema().safeParse(raw);
  if (r.success) return c.contextSlice(r.data.version, r.data.from, r.data.to);
  const tail = 10;
  return { version: c.contextVersion, count: c.messages.length, from: Math.max(0, c.messages.length - tail), messages: c.messages.slice(-tail) };
}

function endedTurn(turn: number, c: Conversation): TurnResult {
  return { turn, status: 'cancelled', answer: '', reason: 'conversation ended before this message was handled', iterations: 0, usage: c.usage };
}
