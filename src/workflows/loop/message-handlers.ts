// Signals, updates and queries: how humans (client, CLI, stock `temporal` CLI, Web UI) steer a running
// conversation. Every argument is parsed with the contract's schemas: an update with bad arguments is
// rejected by its validator (nothing is recorded), a signal — which has no validator — is read leniently.
import { condition, log, setHandler } from '@temporalio/workflow';
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
} from '../../shared/contract';
import {
  answerUpdate,
  approveFromParentSignal,
  approveUpdate,
  childApprovalsSignal,
  childProgressSignal,
  contextQuery,
  endSignal,
  eventsQuery,
  interruptSignal,
  NOTHING_PENDING,
  sendUpdate,
  stateQuery,
  toolsQuery,
} from '../../shared/messages';
import { childProgressSchema, contextQueryArgsSchema } from '../../shared/wire';
import type { Conversation } from '../state/conversation-state';
import type { Meter } from '../state/meter';
import type { Transcript } from '../state/transcript';
import { approvalTarget, onApproveFromParent, onChildApprovals, routeApproval } from '../subagents/approvals';
import { childStatus } from '../subagents/ledger';
import { rejecting } from '../engine/validators';
import { snapshot } from '../state/view';
import { checkedSendOffer, registerClientToolHandlers, sendReply } from './client-handlers';
import { sendOfferSchema } from '../../shared/client-tools';

export function registerHandlers(c: Conversation): void {
  setHandler(stateQuery, (raw) => snapshot(c, parseArgs(stateQueryArgsSchema(), raw, 'state query arguments')), {
    description: 'Live state: status, iteration, budgets left, usage, todo, pending question and approvals, steps. Optional { stepsAfter: N }',
  });
  setHandler(contextQuery, (raw) => context(c.transcript, raw), {
    description:
      'The messages the model sees. Internal (the model activity reads { version, from, to }); without arguments, the count and the last 10',
  });
  setHandler(toolsQuery, () => c.toolList ?? null, {
    description: "The worker's custom, HTTP and MCP tools this conversation recorded at its start (names, descriptions, JSON schemas)",
  });

  setHandler(eventsQuery, (raw) => c.events.page(eventsFrom(raw), c.status), {
    description: 'Live step events from offset { from } on (model and tool steps, waiting, answers, status); a watcher asks again from `next`',
  });

  setHandler(interruptSignal, (raw) => c.interrupt(readInterrupt(raw)), {
    description: 'Stops the step in flight: { reason?, message? } or a bare string; with a message the loop goes on with it',
  });

  setHandler(answerUpdate, (raw) => c.human.answer(answerSchema().parse(raw).text), {
    validator: rejecting((raw) => {
      if (!c.human.question) throw new Error(NOTHING_PENDING.answer);
      parseArgs(answerSchema(), raw, 'answer: expected {"text": "..."}');
    }),
    description: 'Answers the pending clarify question: { text }',
  });

  setHandler(
    approveUpdate,
    (raw) => {
      const args = approveSchema().parse(raw);
      const target = approvalTarget(c, args);
      if (!target.own) return routeApproval(target, args);
      c.human.decide(args);
      return { callId: args.callId, decision: args.decision };
    },
    {
      validator: rejecting((raw) => {
        if (!c.pendingApprovals().length) throw new Error(NOTHING_PENDING.approve);
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
      const ticket = c.send(sendSchema().parse(raw).text, sendOfferSchema().parse(raw));
      await condition(() => sendReply(c, ticket) !== undefined || c.chat.ended);
      return sendReply(c, ticket) ?? endedTurn(ticket, c.meter);
    },
    {
      validator: rejecting((raw) => {
        if (c.input.mode !== 'chat') throw new Error('send needs a conversation started in chat mode');
        if (c.chat.ended) throw new Error(NOTHING_PENDING.send);
        parseArgs(sendSchema(), raw, 'message: expected {"text": "..."}');
        checkedSendOffer(c, raw);
        if (c.input.busyPolicy === 'reject' && (c.chat.turnInProgress || c.chat.waiting)) {
          throw new Error('a turn is running; busyPolicy is reject: send again when it has finished');
        }
      }),
      description:
        "Chat mode: sends a user message and returns that turn's answer (or the client tool calls it waits on): { text, tools?, toolChoice?, responseFormat? }",
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
      c.chat.end();
    },
    { description: 'Chat mode: ends the conversation: { reason? }' },
  );

  registerClientToolHandlers(c);
  c.stop.watchCancel();
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

/** `{ from: N }`, a bare N, or nothing (from the oldest event kept): a query from the stock CLI may send any JSON. */
function eventsFrom(raw: unknown): number {
  const v = typeof raw === 'number' ? raw : (raw as { from?: unknown } | null | undefined)?.from;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

/** The model activity asks for exact slices; a person (the Web UI's Queries tab) asks with no arguments. */
function context(t: Transcript, raw: unknown) {
  const r = contextQueryArgsSchema().safeParse(raw);
  if (r.success) return t.slice(r.data.version, r.data.from, r.data.to);
  const tail = 10;
  return { version: t.version, count: t.length, from: Math.max(0, t.length - tail), messages: t.messages.slice(-tail) };
}

function endedTurn(turn: number, meter: Meter): TurnResult {
  return { turn, status: 'cancelled', answer: '', reason: 'conversation ended before this message was handled', iterations: 0, usage: meter.usage };
}
