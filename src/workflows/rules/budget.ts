// Budgets beyond iterations, checked deterministically in the workflow before every model call. Pure.
import type { BudgetView, Limits, Usage } from '../../shared/contract';

export const WARN_AT = 0.8;

export type BudgetKind = 'iterations' | 'tokens' | 'costUsd' | 'seconds';

export interface BudgetInput {
  limits: Limits;
  usage: Usage;
  /** Iterations used in the current turn. */
  iterations: number;
  elapsedSec: number;
}

function views(b: BudgetInput): Record<BudgetKind, BudgetView | null> {
  const v = (used: number, limit: number): BudgetView | null => (limit > 0 ? { used, limit, left: Math.max(0, limit - used) } : null);
  return {
    iterations: v(b.iterations, b.limits.maxIterations),
    tokens: v(b.usage.totalTokens, b.limits.maxTokens),
    costUsd: v(b.usage.costUsd, b.limits.maxCostUsd),
    seconds: v(b.elapsedSec, b.limits.maxDurationSec),
  };
}

/** Each budget's use; null where there is no limit (`maxIterations: 0` is no step cap). */
export function budgetViews(b: BudgetInput): Record<BudgetKind, BudgetView | null> {
  return views(b);
}

/** The first budget that is used up, described for the final summary request; undefined while all have room. */
export function exhausted(b: BudgetInput): string | undefined {
  for (const [kind, view] of Object.entries(views(b))) {
    if (view && view.used >= view.limit) return `${kind}: ${fmt(kind, view.used)} of ${fmt(kind, view.limit)}`;
  }
  return undefined;
}

/** Budgets past 80 % that have not been warned about yet (the caller records them as warned). */
export function dueWarnings(b: BudgetInput, warned: readonly string[]): Array<{ kind: BudgetKind; text: string }> {
  const out: Array<{ kind: BudgetKind; text: string }> = [];
  for (const [kind, view] of Object.entries(views(b)) as Array<[BudgetKind, BudgetView | null]>) {
    if (!view || warned.includes(kind) || view.used < view.limit * WARN_AT || view.used >= view.limit) continue;
    out.push({
      kind,
      text:
        `Budget notice: you have used ${Math.round((view.used / view.limit) * 100)}% of your ${kind} budget ` +
        `(${fmt(kind, view.used)} of ${fmt(kind, view.limit)}). Wrap up: finish the most important part and give your answer soon.`,
    });
  }
  return out;
}

function fmt(kind: string, n: number): string {
  if (kind === 'costUsd') return `$${n.toFixed(4)}`;
  return kind === 'seconds' ? String(Math.floor(n)) : String(n);
}
