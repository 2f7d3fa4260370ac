// Token and cost accounting: a conversation's usage is the sum of its calls' (and its sub-agents'), and a
// sub-agent's report adds only what is new since the last one.
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../shared/contract';
import { addUsage, subUsage, ZERO_USAGE } from './usage';

const u = (promptTokens: number, completionTokens: number, costUsd: number, reasoningTokens?: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  costUsd,
  ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
});

describe('addUsage', () => {
  it('adds every count, and reasoning tokens only when there are any', () => {
    expect(addUsage(u(100, 20, 0.01), u(50, 5, 0.002))).toEqual(u(150, 25, 0.012));
    expect(addUsage(ZERO_USAGE, u(1, 1, 0))).not.toHaveProperty('reasoningTokens');
    expect(addUsage(u(1, 1, 0, 7), u(1, 1, 0)).reasoningTokens).toBe(7);
    expect(addUsage(u(1, 1, 0, 7), u(1, 1, 0, 3)).reasoningTokens).toBe(10);
  });

  it('leaves both inputs as they were (a carried usage is shared state)', () => {
    const a = u(1, 2, 0.5);
    addUsage(a, u(3, 4, 0.25));
    expect(a).toEqual(u(1, 2, 0.5));
  });
});

describe('subUsage', () => {
  it('is what the later report has beyond the earlier one, never negative', () => {
    expect(subUsage(u(150, 25, 0.012, 10), u(100, 20, 0.01, 4))).toEqual({ ...u(50, 5, 0.012 - 0.01), reasoningTokens: 6 });
    // A report that went backwards (a restarted child) adds nothing rather than taking usage away.
    expect(subUsage(u(10, 1, 0), u(100, 20, 0.01))).toEqual(ZERO_USAGE);
  });

  it('adds back to the later report', () => {
    const before = u(100, 20, 0.25, 4);
    const after = u(180, 30, 0.75, 9);
    expect(addUsage(before, subUsage(after, before))).toEqual(after);
  });
});
