// Compression's bookkeeping: the prompt-token estimate that triggers it, the window per profile, and the per-turn
// limits (two ineffective automatic compressions turn it off; at most a few for overflows).
import { describe, expect, it } from 'vitest';
import type { ModelCallResult } from '../../shared/wire';
import { ZERO_USAGE } from '../rules/usage';
import { CHARS_PER_TOKEN, compressionCarry, CompressionState } from './compression-state';

const result = (promptTokens: number, contextWindow?: number): ModelCallResult => ({
  message: { content: 'ok' },
  usage: { ...ZERO_USAGE, promptTokens, totalTokens: promptTokens },
  model: 'test-model',
  ...(contextWindow ? { contextWindow } : {}),
});

describe('CompressionState', () => {
  it('estimates from characters until a call reports prompt tokens, then from those plus the growth since', () => {
    const s = new CompressionState(undefined);
    expect(s.hasEstimate).toBe(false);
    expect(s.tokensFor(7_000)).toBe(7_000 / CHARS_PER_TOKEN);
    // The endpoint counted 3,000 tokens for 7,000 characters (tool definitions included): 3,500 more characters
    // add 1,000 tokens, whatever the first ratio was.
    s.learn(result(3_000), 7_000, undefined);
    expect(s.hasEstimate).toBe(true);
    expect(s.tokensFor(10_500)).toBe(4_000);
    // A context that shrank (a compression) lowers it, never below zero.
    expect(s.tokensFor(3_500)).toBe(2_000);
    expect(s.tokensFor(0)).toBe(1_000);
    s.learn(result(100), 7_000, undefined);
    expect(s.tokensFor(0)).toBe(0);
  });

  it('keeps the last reported prompt tokens when a call reports none', () => {
    const s = new CompressionState(undefined);
    s.learn(result(3_000), 7_000, undefined);
    s.learn(result(0), 50_000, undefined);
    expect(s.tokensFor(7_000)).toBe(3_000);
  });

  it('keeps the context window each profile reported', () => {
    const s = new CompressionState(undefined);
    expect(s.windowOf(undefined)).toBeUndefined();
    s.learn(result(10, 32_768), 100, undefined);
    s.learn(result(10, 128_000), 100, 'big');
    s.learn(result(10), 100, 'big');
    expect([s.windowOf(undefined), s.windowOf('big'), s.windowOf('other')]).toEqual([32_768, 128_000, undefined]);
  });

  it('turns automatic compression off after two ineffective ones in a row, until the next turn', () => {
    const s = new CompressionState(undefined);
    s.startTurn(1);
    expect(s.judge(0.05, 0.1)).toBe(false);
    expect(s.judge(0.5, 0.1)).toBe(false);
    expect(s.judge(0.05, 0.1)).toBe(false);
    expect(s.off).toBe(false);
    expect(s.judge(0.09, 0.1)).toBe(true);
    expect(s.off).toBe(true);
    s.startTurn(1);
    expect(s.off).toBe(true);
    s.startTurn(2);
    expect(s.off).toBe(false);
    expect(s.judge(0.05, 0.1)).toBe(false);
  });

  it('allows a fixed number of overflow compressions per turn', () => {
    const s = new CompressionState(undefined);
    s.startTurn(1);
    expect([1, 2, 3, 4].map(() => s.overflowed(3))).toEqual([true, true, true, false]);
    s.startTurn(2);
    expect(s.overflowed(3)).toBe(true);
  });

  it('carries what it learned across continue-as-new, in the carried schema', () => {
    const s = new CompressionState(undefined);
    s.learn(result(3_000, 32_768), 7_000, undefined);
    s.startTurn(4);
    s.judge(0.01, 0.1);
    s.judge(0.01, 0.1);
    s.compressed();
    s.summarised(2);
    const next = new CompressionState(compressionCarry().parse(JSON.parse(JSON.stringify(s.carry()))));
    expect([next.count, next.summaryAt, next.off, next.windowOf(undefined), next.tokensFor(7_000)]).toEqual([1, 2, true, 32_768, 3_000]);
  });
});
