// The live summary on the workflow page of the Temporal Web UI (`setCurrentDetails`). Read-only. It takes the
// concerns it reads rather than the Conversation, which publishes it (status-board.ts), so the two do not import
// each other.
import { workflowInfo } from '@temporalio/workflow';
import { redactCredentials } from '../../shared/credentials';
import type { SubagentLedger } from '../subagents/ledger';
import { handoffText } from './handoff';
import type { HumanGate } from './human-gate';
import type { Meter } from './meter';
import type { StatusBoard } from './status-board';
import type { Transcript } from './transcript';

/** What the summary reads of a conversation. */
export interface DetailsSource {
  readonly input: { readonly prompt?: string; readonly mode?: string };
  readonly board: StatusBoard;
  readonly meter: Meter;
  readonly human: HumanGate;
  readonly children: SubagentLedger;
  readonly transcript: Transcript;
}

/** Markdown for `setCurrentDetails`: status, progress and the latest step. */
export function detailsText(c: DetailsSource): string {
  const { board, meter } = c;
  const last = board.steps[board.steps.length - 1];
  const id = workflowInfo().workflowId;
  const task = c.input.prompt?.trim().split('\n')[0];
  const { usage, redactions } = meter;
  return [
    `**${board.shownStatus}**${board.waitingFor ? ` (waiting for ${board.waitingFor})` : ''} · iteration ${meter.iteration} · run ${meter.runs} of ${id}`,
    task ? `task: ${task.slice(0, 200)}` : '',
    handoffText(),
    c.input.mode === 'chat' ? lastMessageText(c) : '',
    `tokens ${usage.totalTokens} · cost $${usage.costUsd.toFixed(4)} · tool calls ${meter.toolCalls}${redactions ? ` · secrets redacted ${redactions}` : ''}`,
    board.inFlight ? `in flight: ${board.inFlight} (attempts and the last failure are on its pending-activity card)` : '',
    last ? `last step${last.modelStep ? ` (model step ${last.modelStep})` : ''}: ${last.kind} ${last.name} — ${last.summary}` : '',
    board.recentOutcomes.length ? `recent outcomes:\n${board.recentOutcomes.map((o) => `- ${o}`).join('\n')}` : '',
    howToAnswer(c, id),
    board.outcome.error ? `${board.outcome.reason ?? 'error'}: ${board.outcome.error}` : '',
    board.shownStatus.endsWith('_no_answer')
      ? `no answer: the run stopped (${board.outcome.reason ?? board.status}) and the model's final summary was empty`
      : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * A chat turn's user message: an update cannot carry a summary of its own (no user metadata on updates in the
 * API), so the message a `send` brought is shown here, redacted as the session summary is and cut short.
 */
function lastMessageText(c: DetailsSource): string {
  const m = c.transcript.messages;
  for (let i = c.transcript.turnStart; i < m.length; i++) {
    const msg = m[i]!;
    if (msg.role === 'user' && typeof msg.content === 'string') {
      const text = redactCredentials(msg.content).text.replace(/\s+/g, ' ').trim();
      return `turn ${c.meter.turn}, user: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
    }
  }
  return '';
}

/** The exact commands that unblock a waiting conversation, for the person looking at the Web UI. */
function howToAnswer(c: DetailsSource, id: string): string {
  const q = c.human.question;
  const waitingFor = c.board.waitingFor;
  if (waitingFor === 'clarify' && q) {
    return [
      `question: ${q.question}`,
      `answer with \`hermes answer ${id} "…"\` or \`temporal workflow update execute --workflow-id ${id} --name answer --input '"…"'\``,
    ].join('\n\n');
  }
  const a = c.human.approvals[0];
  if (waitingFor === 'approval' && a) {
    return [
      `approval needed (${a.reason}): ${a.tool} ${a.command.slice(0, 200)}`,
      `decide with \`hermes approve ${id} ${a.callId} [--deny]\` or ` +
        `\`temporal workflow update execute --workflow-id ${id} --name approve --input '{"callId":"${a.callId}","decision":"approve"}'\``,
    ].join('\n\n');
  }
  const f = c.children.forwarded()[0];
  if (f?.child) {
    return [
      `a sub-agent needs approval (${f.reason}): ${f.child.workflowId} (${f.child.goal.slice(0, 100)}) wants ${f.tool} ${f.command.slice(0, 200)}`,
      `decide with \`hermes approve ${id} ${f.callId} [--deny]\``,
    ].join('\n\n');
  }
  if (waitingFor === 'message') {
    return `send the next message with \`temporal workflow update execute --workflow-id ${id} --name send --input '"…"'\`, or end it with the \`end\` signal`;
  }
  return '';
}
