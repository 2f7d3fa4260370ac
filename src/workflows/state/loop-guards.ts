// The loop guards: the counters that carry over steps and that the stop conditions read
// (src/workflows/rules/stop-conditions.ts): empty replies in a row, tool calls in a row that could not run, the
// recent tool steps (repetition). State, so it lives with the other concerns of the Conversation.
import { z } from 'zod';
import { fingerprint, recordStep } from '../rules/repetition';
import type { StepResult } from '../loop/step-result';

export function guardsCarry() {
  const n = z.number().int().min(0);
  return z.object({
    emptyStreak: n,
    invalidStreak: n,
    repeat: z.object({ recent: z.array(z.string()), warned: z.boolean() }),
  });
}
export type GuardsCarry = z.infer<ReturnType<typeof guardsCarry>>;

export class LoopGuards {
  #empty: number;
  #invalid: number;
  #repeat: GuardsCarry['repeat'];

  constructor(carried: GuardsCarry | undefined) {
    this.#empty = carried?.emptyStreak ?? 0;
    this.#invalid = carried?.invalidStreak ?? 0;
    this.#repeat = carried?.repeat ?? { recent: [], warned: false };
  }

  carry(): GuardsCarry {
    return { emptyStreak: this.#empty, invalidStreak: this.#invalid, repeat: this.#repeat };
  }

  get emptyStreak(): number {
    return this.#empty;
  }
  get invalidStreak(): number {
    return this.#invalid;
  }

  /** Counts a step's result; returns the loop warning when a tool step repeats for the third time (once). */
  count(step: StepResult): { warnLooping?: string; stopRepeating?: string } {
    this.#empty = step.kind === 'empty' ? this.#empty + 1 : 0;
    if (step.kind === 'unreadable') this.#invalid++;
    if (step.kind !== 'tools') return {};
    for (const valid of step.valid) this.#invalid = valid ? 0 : this.#invalid + 1;
    let warnLooping: string | undefined;
    for (const r of step.ran) {
      const verdict = recordStep(this.#repeat, `${r.name}:${r.argsKey}:${fingerprint(r.content)}`);
      if (verdict === 'stop') return { stopRepeating: r.label };
      if (verdict === 'warn') warnLooping = r.name;
    }
    return warnLooping ? { warnLooping } : {};
  }

  /** Chat: each user message starts with clean streaks. */
  newTurn(): void {
    this.#empty = 0;
    this.#invalid = 0;
    this.#repeat = { recent: [], warned: false };
  }
}
