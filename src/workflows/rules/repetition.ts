// Detects an agent stuck in a loop: the same call with the same result, again and again. Pure.
import type { RepeatState } from '../../shared/wire';

export const REPEAT_WINDOW = 5;
export const REPEAT_THRESHOLD = 3;

export type RepeatVerdict = 'ok' | 'warn' | 'stop';

/** Records one tool step and says whether the model should be warned, or stopped after a warning. */
export function recordStep(state: RepeatState, signature: string): RepeatVerdict {
  state.recent.push(signature);
  if (state.recent.length > REPEAT_WINDOW) state.recent.splice(0, state.recent.length - REPEAT_WINDOW);
  const count = state.recent.filter((s) => s === signature).length;
  if (count < REPEAT_THRESHOLD) return 'ok';
  if (!state.warned) {
    state.warned = true;
    return 'warn';
  }
  return 'stop';
}

// A module-level alias: a global read in the workflow sandbox goes through the vm context's interceptor, once per
// character in this loop (src/shared/digest.ts says how much that costs).
const imul = Math.imul;

/** FNV-1a, 32 bit: a short deterministic fingerprint of a result (no crypto in the workflow sandbox). */
export function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
