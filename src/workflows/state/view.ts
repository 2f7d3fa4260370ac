// What people see of a running conversation: the `state` query (the live summary on the Web UI's workflow page is
// details.ts). Read-only.
import type { ConversationState, StateQueryArgs } from '../../shared/contract';
import { budgetViews } from '../rules/budget';
import type { Conversation } from './conversation-state';

export function snapshot(c: Conversation, args?: StateQueryArgs): ConversationState {
  const after = typeof args?.stepsAfter === 'number' ? args.stepsAfter : undefined;
  const { board, meter } = c;
  const steps = board.steps;
  const shown = after === undefined ? steps.slice(-5) : steps.filter((s) => s.step > after);
  const last = steps[steps.length - 1];
  return {
    status: board.status,
    ...board.outcome,
    iteration: meter.iteration,
    maxIterations: c.limits.maxIterations,
    iterationsLeft: c.limits.maxIterations > 0 ? Math.max(0, c.limits.maxIterations - meter.turnIterations) : null,
    usage: meter.usage,
    modelCalls: meter.modelCalls,
    toolCalls: meter.toolCalls,
    messages: c.transcript.length,
    contextVersion: c.transcript.version,
    redactions: meter.redactions,
    runs: meter.runs,
    mode: c.input.mode ?? 'task',
    ...(c.model.profile ? { profile: c.model.profile } : {}),
    turn: meter.turn,
    waitingFor: board.waitingFor,
    budgets: budgetViews(c.budgetInput()),
    todo: [...c.todo.items],
    pendingQuestion: c.human.question,
    pendingApprovals: c.pendingApprovals(),
    lastStep: last,
    steps: shown,
    // Steps before the ones shown that this answer leaves out: dropped from the kept 20, or (without a cursor)
    // older than the last 5.
    stepsMissed: Math.max(0, (shown[0]?.step ?? (last ? last.step + 1 : 1)) - (after ?? 0) - 1),
    ...(c.children.views.length ? { children: [...c.children.views] } : {}),
    ...(c.chat.lastResult ? { lastTurn: c.chat.lastResult } : {}),
    ...(c.clientTools.pending ? { awaitedToolCalls: [...c.clientTools.pending.calls] } : {}),
  };
}
