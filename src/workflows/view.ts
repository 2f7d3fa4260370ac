// What people see of a running conversation: the `state` query and the live summary on the workflow page of
// the Temporal Web UI. Read-only.
import { workflowInfo } from '@temporalio/workflow';
import type { ConversationState, StateQueryArgs } from '../shared/contract';
import { budgetViews } from './budget';
import type { Conversation } from './state';

export function snapshot(c: Conversation, args?: StateQueryArgs): ConversationState {
  const after = typeof args?.stepsAfter === 'number' ? args.stepsAfter : undefined;
  const first = c.steps[0]?.step;
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
    turn: c.turn,
    waitingFor: c.waitingFor,
    budgets: budgetViews(c.budgetInput()),
    todo: c.todo,
    pendingQuestion: c.pendingQuestion,
    pendingApprovals: c.pendingApprovals,
    lastStep: c.steps[c.steps.length - 1],
    steps: after === undefined ? c.steps.slice(-5) : c.steps.filter((s) => s.step > after),
    stepsMissed: after !== undefined && first !== undefined ? Math.max(0, first - after - 1) : 0,
  };
}

/** Markdown for `setCurrentDetails`: status, progress and the latest step. */
export function detailsText(c: Conversation): string {
  const last = c.steps[c.steps.length - 1];
  return [
    `**${c.status}**${c.waitingFor ? ` (waiting for ${c.waitingFor})` : ''} · iteration ${c.iteration} · run ${c.runs} of ${workflowInfo().workflowId}`,
    `tokens ${c.usage.totalTokens} · cost $${c.usage.costUsd.toFixed(4)} · tool calls ${c.toolCalls}`,
    last ? `last step: ${last.kind} ${last.name} — ${last.summary}` : '',
    c.outcome.error ? `${c.outcome.reason ?? 'error'}: ${c.outcome.error}` : '',
  ].join('\n\n');
}
