// What people see of a running conversation: the `state` query and the live summary on the workflow page of
// the Temporal Web UI. Read-only.
import { workflowInfo } from '@temporalio/workflow';
import type { ConversationState, StateQueryArgs } from '../shared/contract';
import { budgetViews } from './budget';
import { forwardedApprovals, allPendingApprovals } from './child-approvals';
import type { Conversation } from './state';

export function snapshot(c: Conversation, args?: StateQueryArgs): ConversationState {
  const after = typeof args?.stepsAfter === 'number' ? args.stepsAfter : undefined;
  const shown = after === undefined ? c.steps.slice(-5) : c.steps.filter((s) => s.step > after);
  const last = c.steps[c.steps.length - 1];
  return {
    status: c.status,
    ...c.outcome,
    iteration: c.iteration,
    maxIterations: c.limits.maxIterations,
    iterationsLeft: Math.max(0, c.limits.maxIterations - (c.iteration - c.turnStartIteration)),
    usage: c.usage,
    modelCalls: c.modelCalls,
    toolCalls: c.toolCalls,
    messages: c.messages.length,
    contextVersion: c.contextVersion,
    redactions: c.redactions,
    runs: c.runs,
    mode: c.input.mode ?? 'task',
    ...(c.profile ? { profile: c.profile } : {}),
    turn: c.turn,
    waitingFor: c.waitingFor,
    budgets: budgetViews(c.budgetInput()),
    todo: c.todo,
    pendingQuestion: c.pendingQuestion,
    pendingApprovals: allPendingApprovals(c),
    lastStep: c.steps[c.steps.length - 1],
    steps: shown,
    // Steps before the ones shown that this answer leaves out: dropped from the kept 20, or (without a cursor)
    // older than the last 5.
    stepsMissed: Math.max(0, (shown[0]?.step ?? (last ? last.step + 1 : 1)) - (after ?? 0) - 1),
    ...(c.children.length ? { children: c.children } : {}),
  };
}

/** Markdown for `setCurrentDetails`: status, progress and the latest step. */
export function detailsText(c: Conversation): string {
  const last = c.steps[c.steps.length - 1];
  const id = workflowInfo().workflowId;
  const task = c.input.prompt?.trim().split('\n')[0];
  return [
    `**${c.status}**${c.waitingFor ? ` (waiting for ${c.waitingFor})` : ''} · iteration ${c.iteration} · run ${c.runs} of ${id}`,
    task ? `task: ${task.slice(0, 200)}` : '',
    `tokens ${c.usage.totalTokens} · cost $${c.usage.costUsd.toFixed(4)} · tool calls ${c.toolCalls}${c.redactions ? ` · secrets redacted ${c.redactions}` : ''}`,
    c.inFlight ? `in flight: ${c.inFlight} (attempts and the last failure are on its pending-activity card)` : '',
    last ? `last step${last.modelStep ? ` (model step ${last.modelStep})` : ''}: ${last.kind} ${last.name} — ${last.summary}` : '',
    c.recentOutcomes.length ? `recent outcomes:\n${c.recentOutcomes.map((o) => `- ${o}`).join('\n')}` : '',
    howToAnswer(c, id),
    c.outcome.error ? `${c.outcome.reason ?? 'error'}: ${c.outcome.error}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The exact commands that unblock a waiting conversation, for the person looking at the Web UI. */
function howToAnswer(c: Conversation, id: string): string {
  const q = c.pendingQuestion;
  if (c.waitingFor === 'clarify' && q) {
    return [
      `question: ${q.question}`,
      `answer with \`hermes answer ${id} "…"\` or \`temporal workflow update execute --workflow-id ${id} --name answer --input '"…"'\``,
    ].join('\n\n');
  }
  const a = c.pendingApprovals[0];
  if (c.waitingFor === 'approval' && a) {
    return [
      `approval needed (${a.reason}): ${a.tool} ${a.command.slice(0, 200)}`,
      `decide with \`hermes approve ${id} ${a.callId} [--deny]\` or ` +
        `\`temporal workflow update execute --workflow-id ${id} --name approve --input '{"callId":"${a.callId}","decision":"approve"}'\``,
    ].join('\n\n');
  }
  const f = forwardedApprovals(c)[0];
  if (f?.child) {
    return [
      `a sub-agent needs approval (${f.reason}): ${f.child.workflowId} (${f.child.goal.slice(0, 100)}) wants ${f.tool} ${f.command.slice(0, 200)}`,
      `decide with \`hermes approve ${id} ${f.callId} [--deny]\``,
    ].join('\n\n');
  }
  if (c.waitingFor === 'message') {
    return `send the next message with \`temporal workflow update execute --workflow-id ${id} --name send --input '"…"'\`, or end it with the \`end\` signal`;
  }
  return '';
}
