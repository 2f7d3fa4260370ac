// What a delegate_task call gives its children and gets back: each child's limits (the parent's, capped by what
// the parent has left) and the one tool result that reports all of them.
import type { ChildView, Limits, Usage } from '../../shared/contract';
import { CHILD_MAX_ITERATIONS } from '../../shared/defaults';
import type { Conversation } from '../state/conversation-state';

/** How a sub-agent ended, as the parent's tool result reports it. */
export interface ChildOutcome {
  workflowId: string;
  goal: string;
  status: ChildView['status'] | 'not_started';
  answer: string;
  reason?: string;
  error?: string;
  modelCalls: number;
  usage: Usage;
}

/** Characters of one child's answer that enter the parent's tool result (the full answer is the child's result). */
const SUMMARY_CAP = 4_000;

/** A child's limits: the parent's, with budgets capped by what the parent has left now. */
export function childLimits(c: Pick<Conversation, 'limits' | 'meter'>): Limits {
  const l = c.limits;
  // No step cap on the parent (maxIterations 0): a child still gets the usual sub-agent cap.
  const iterationsLeft = l.maxIterations > 0 ? l.maxIterations - c.meter.turnIterations : CHILD_MAX_ITERATIONS;
  const secondsLeft = l.maxDurationSec > 0 ? l.maxDurationSec - (Date.now() - c.meter.startedAtMs) / 1000 : 0;
  return {
    ...l,
    maxIterations: Math.max(1, Math.min(CHILD_MAX_ITERATIONS, iterationsLeft)),
    maxTokens: l.maxTokens > 0 ? Math.max(1, l.maxTokens - c.meter.usage.totalTokens) : 0,
    maxCostUsd: l.maxCostUsd > 0 ? Math.max(1e-6, l.maxCostUsd - c.meter.usage.costUsd) : 0,
    maxDurationSec: l.maxDurationSec > 0 ? Math.max(1, Math.ceil(secondsLeft)) : 0,
  };
}

/** One tool result for all children: a status line each, then each summary (capped). */
export function resultText(outcomes: ChildOutcome[], limits: Limits): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
  const tokens = outcomes.reduce((n, o) => n + o.usage.totalTokens, 0);
  const head = `${outcomes.length} sub-agent(s): ${[...counts].map(([s, n]) => `${n} ${s}`).join(', ')}; ${tokens} tokens in all.`;
  const cap = Math.max(200, Math.min(SUMMARY_CAP, Math.floor((limits.toolOutputLimit - 200 * (outcomes.length + 1)) / outcomes.length)));
  const parts = outcomes.map((o, i) => {
    const why = [o.reason, o.error].filter(Boolean).join(': ');
    const answer =
      o.answer.length > cap
        ? `${o.answer.slice(0, cap)}\n[… ${o.answer.length - cap} more characters: the full answer is the result of ${o.workflowId}]`
        : o.answer;
    return [
      `[${i + 1}] ${o.status}${why ? ` (${why})` : ''} · ${o.workflowId} · ${o.modelCalls} model call(s), ${o.usage.totalTokens} tokens`,
      `goal: ${o.goal.split('\n')[0]!.slice(0, 200)}`,
      answer ? `summary: ${answer}` : 'summary: (none)',
    ].join('\n');
  });
  return [head, ...parts].join('\n\n');
}
