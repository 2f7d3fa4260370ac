import { describe, expect, it } from 'vitest';
import { TOO_LARGE_MARKER, type ModelCallResult } from '../shared/wire';
import { fitResult, MAX_RESULT_BYTES } from './model-size';

const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2, costUsd: 0 };
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
const call = (id: string, args: string) => ({ id, type: 'function' as const, function: { name: 'write_file', arguments: args } });
const reply = (content: string | null, calls: Array<ReturnType<typeof call>> = []): ModelCallResult => ({
  message: { content, ...(calls.length ? { tool_calls: calls } : {}) },
  usage,
  model: 'm',
});

describe('fitResult: a reply as a payload Temporal accepts', () => {
  it('leaves a reply that fits as it is', () => {
    const r = reply('hello', [call('a', '{"path":"x","content":"y"}')]);
    expect(fitResult(r)).toBe(r);
  });

  it('turns the largest arguments into too-large markers, largest first, until it fits', () => {
    const sizes = [400_000, 500_000, 480_000, 490_000, 460_000];
    const r = reply(
      'writing',
      sizes.map((n, i) => call(`c${i}`, JSON.stringify({ path: `f${i}`, content: 'x'.repeat(n) }))),
    );
    const fitted = fitResult(r);
    expect(bytes(fitted)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    const marked = fitted.message.tool_calls!.map((c) => c.function.arguments.startsWith(TOO_LARGE_MARKER));
    expect(marked).toEqual([false, true, false, true, false]);
    expect(fitted.message.tool_calls![1]!.function.arguments).toContain(
      `${JSON.stringify({ path: 'f1', content: 'x'.repeat(500_000) }).length} characters`,
    );
    expect(fitted.message.content).toBe('writing');
  });

  it('cuts text that JSON writes as several bytes a character (control characters: 6, CJK: 3)', () => {
    for (const [unit, text] of [
      ['\u0001', '\u0001'.repeat(512 * 1024)],
      ['漢', '漢'.repeat(512 * 1024)],
      ['\u0001', '\u0001'.repeat(250_000) + 'a'.repeat(400_000)], // dense head, light tail: cut in several rounds
    ] as const) {
      const fitted = fitResult(reply(text));
      expect(bytes(fitted), unit).toBeLessThanOrEqual(MAX_RESULT_BYTES);
      expect(bytes(fitted), unit).toBeGreaterThan(MAX_RESULT_BYTES - 4096);
      expect(fitted.message.content!.startsWith(unit.repeat(1000))).toBe(true);
      expect(fitted.message.content).toMatch(/\n\[\.\.\. reply cut: \d+ more characters, more than one step may record\]$/);
    }
  });

  it('cuts the text, not small calls, when the text is what is large', () => {
    const small = [call('a', '{"path":"x"}'), call('b', JSON.stringify({ path: 'y', content: 'z'.repeat(2_000) }))];
    const fitted = fitResult(reply('\u0001'.repeat(512 * 1024), small));
    expect(bytes(fitted)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(fitted.message.tool_calls).toEqual(small);
    expect(fitted.message.content).toMatch(/reply cut: \d+ more characters/);
  });

  it('marks the larger call, not the text, when the call is what is large', () => {
    const fitted = fitResult(reply('a'.repeat(500_000), [call('c', JSON.stringify({ content: '\u0001'.repeat(300_000) }))]));
    expect(bytes(fitted)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(fitted.message.content).toBe('a'.repeat(500_000));
    expect(fitted.message.tool_calls![0]!.function.arguments.startsWith(TOO_LARGE_MARKER)).toBe(true);
  });
});
