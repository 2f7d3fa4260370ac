// The budgets a turn is stopped by (iterations, tokens, cost, wall-clock time) and the 80 % notices before that.
import { describe, expect, it } from 'vitest';
import type { Limits, Usage } from '../../shared/contract';
import { DEFAULT_LIMITS } from '../../shared/defaults';
import { budgetViews, dueWarnings, exhausted, type BudgetInput } from './budget';
import { ZERO_USAGE } from './usage';

const NO_CAPS: Partial<Limits> = { maxIterations: 0, maxTokens: 0, maxCostUsd: 0, maxDurationSec: 0 };

function input(limits: Partial<Limits>, used: { iterations?: number; usage?: Partial<Usage>; elapsedSec?: number } = {}): BudgetInput {
  return {
    limits: { ...DEFAULT_LIMITS, ...NO_CAPS, ...limits },
    usage: { ...ZERO_USAGE, ...used.usage },
    iterations: used.iterations ?? 0,
    elapsedSec: used.elapsedSec ?? 0,
  };
}

describe('exhausted', () => {
  it('holds nothing back while every budget has room, and a 0 limit is no limit', () => {
    expect(exhausted(input({ maxIterations: 10, maxTokens: 1_000 }, { iterations: 9, usage: { totalTokens: 999 } }))).toBeUndefined();
    expect(exhausted(input({}, { iterations: 1e6, usage: { totalTokens: 1e9, costUsd: 1e3 }, elapsedSec: 1e7 }))).toBeUndefined();
  });

  it('stops at the limit itself, not one past it', () => {
    expect(exhausted(input({ maxIterations: 10 }, { iterations: 10 }))).toBe('iterations: 10 of 10');
    expect(exhausted(input({ maxTokens: 1_000 }, { usage: { totalTokens: 1_000 } }))).toBe('tokens: 1000 of 1000');
  });

  it('names cost in dollars and time in whole seconds', () => {
    expect(exhausted(input({ maxCostUsd: 0.5 }, { usage: { costUsd: 0.51234 } }))).toBe('costUsd: $0.5123 of $0.5000');
    expect(exhausted(input({ maxDurationSec: 60 }, { elapsedSec: 61.9 }))).toBe('seconds: 61 of 60');
  });

  it('reports the first used-up budget in a fixed order: iterations, tokens, cost, time', () => {
    const all = { iterations: 5, usage: { totalTokens: 100, costUsd: 1 }, elapsedSec: 10 };
    expect(exhausted(input({ maxIterations: 5, maxTokens: 100, maxCostUsd: 1, maxDurationSec: 10 }, all))).toMatch(/^iterations:/);
    expect(exhausted(input({ maxTokens: 100, maxCostUsd: 1, maxDurationSec: 10 }, all))).toMatch(/^tokens:/);
    expect(exhausted(input({ maxIterations: 6, maxTokens: 101, maxDurationSec: 10 }, all))).toMatch(/^seconds:/);
  });
});

describe('budgetViews', () => {
  it('shows what is left, never below zero, and null for a budget without a limit', () => {
    const v = budgetViews(input({ maxTokens: 1_000, maxCostUsd: 2 }, { usage: { totalTokens: 1_200, costUsd: 0.5 } }));
    expect(v.tokens).toEqual({ used: 1_200, limit: 1_000, left: 0 });
    expect(v.costUsd).toEqual({ used: 0.5, limit: 2, left: 1.5 });
    expect(v.iterations).toBeNull();
    expect(v.seconds).toBeNull();
  });
});

describe('dueWarnings', () => {
  it('warns from 80 % of a budget on, with the share used', () => {
    expect(dueWarnings(input({ maxTokens: 1_000 }, { usage: { totalTokens: 799 } }), [])).toEqual([]);
    const [w] = dueWarnings(input({ maxTokens: 1_000 }, { usage: { totalTokens: 800 } }), []);
    expect(w?.kind).toBe('tokens');
    expect(w?.text).toContain('used 80% of your tokens budget (800 of 1000)');
  });

  it('does not warn twice, nor about a budget already used up (that one stops the turn)', () => {
    const near = input({ maxIterations: 10, maxCostUsd: 1 }, { iterations: 9, usage: { costUsd: 0.9 } });
    expect(dueWarnings(near, []).map((w) => w.kind)).toEqual(['iterations', 'costUsd']);
    expect(dueWarnings(near, ['iterations']).map((w) => w.kind)).toEqual(['costUsd']);
    expect(dueWarnings(input({ maxIterations: 10 }, { iterations: 10 }), [])).toEqual([]);
  });
});
