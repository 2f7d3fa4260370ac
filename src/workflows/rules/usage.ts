// Token and cost accounting. Pure.
import type { Usage } from '../../shared/contract';

export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  const reasoning = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd + b.costUsd,
    // Only when there is any: usage without reasoning looks as it did before reasoning was counted.
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
  };
}

/** What `a` has beyond `b`, never below zero. */
export function subUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: Math.max(0, a.promptTokens - b.promptTokens),
    completionTokens: Math.max(0, a.completionTokens - b.completionTokens),
    totalTokens: Math.max(0, a.totalTokens - b.totalTokens),
    costUsd: Math.max(0, a.costUsd - b.costUsd),
    ...(a.reasoningTokens ? { reasoningTokens: Math.max(0, a.reasoningTokens - (b.reasoningTokens ?? 0)) } : {}),
  };
}
