// Context compression's bookkeeping (compress.ts): the context window each profile reported, the last reported
// prompt tokens (for the estimate of the next request), the summary written so far, and per turn whether
// automatic compression still helps.
import { z } from 'zod';
import type { ModelCallResult } from '../../shared/wire';

/**
 * Characters per token of what the context gained or lost since the last call. Not the last call's ratio: its
 * prompt tokens include the tool definitions, which do not grow with the context.
 */
export const CHARS_PER_TOKEN = 3.5;
export function compressionCarry() {
  const n = z.number().int().min(0);
  return z.object({
    /** Context window in tokens per profile name ('' = the worker's default), as the worker reported it. */
    windows: z.record(z.string(), z.number()),
    /** The last model call's reported prompt tokens, and the characters (contextChars) of the context it was sent. */
    promptTokens: z.number(),
    promptChars: z.number(),
    /** Index of the summary message in the context, once a summary was written. */
    summaryAt: n.optional(),
    /** Compressions so far; ineffective automatic ones in a row in turn `turn`, overflow retries in that turn. */
    count: n,
    turn: n,
    ineffective: n,
    overflows: n,
    /** Automatic compression is off for the rest of turn `turn`. */
    off: z.boolean(),
  });
}
type CompressionCarry = z.infer<ReturnType<typeof compressionCarry>>;

export class CompressionState {
  #s: CompressionCarry;

  constructor(carried: CompressionCarry | undefined) {
    this.#s = carried ?? { windows: {}, promptTokens: 0, promptChars: 0, count: 0, turn: 0, ineffective: 0, overflows: 0, off: false };
  }

  carry(): CompressionCarry {
    return this.#s;
  }

  windowOf(profile: string | undefined): number | undefined {
    return this.#s.windows[profile ?? ''];
  }
  get hasEstimate(): boolean {
    return this.#s.promptTokens > 0;
  }
  get count(): number {
    return this.#s.count;
  }
  get summaryAt(): number | undefined {
    return this.#s.summaryAt;
  }
  get off(): boolean {
    return this.#s.off;
  }

  /** After each model call: the window (when asked for) and the prompt tokens of the context of `chars` characters. */
  learn(r: ModelCallResult, chars: number, profile: string | undefined): void {
    if (r.contextWindow) this.#s.windows[profile ?? ''] = r.contextWindow;
    if (r.usage.promptTokens > 0) {
      this.#s.promptTokens = r.usage.promptTokens;
      this.#s.promptChars = chars;
    }
  }

  /** Estimated prompt tokens of a request with a context of `chars` characters: the last reported ones, plus the growth since. */
  tokensFor(chars: number): number {
    const s = this.#s;
    return Math.round(s.promptTokens > 0 ? Math.max(0, s.promptTokens + (chars - s.promptChars) / CHARS_PER_TOKEN) : chars / CHARS_PER_TOKEN);
  }

  startTurn(turn: number): void {
    if (this.#s.turn === turn) return;
    Object.assign(this.#s, { turn, ineffective: 0, overflows: 0, off: false });
  }

  /** An automatic compression saved `saved` (a share); two ineffective ones in a row turn it off for the turn. Returns whether it did. */
  judge(saved: number, enough: number): boolean {
    if (saved >= enough) {
      this.#s.ineffective = 0;
      return false;
    }
    this.#s.ineffective++;
    if (this.#s.ineffective < 2) return false;
    this.#s.off = true;
    return true;
  }

  /** A ContextOverflow: true while this turn may still compress for it (at most `max` times). */
  overflowed(max: number): boolean {
    if (this.#s.overflows >= max) return false;
    this.#s.overflows++;
    return true;
  }

  compressed(): void {
    this.#s.count++;
  }
  summarised(at: number): void {
    this.#s.summaryAt = at;
  }
}
