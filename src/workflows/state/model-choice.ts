// Which model profile the conversation's steps use: the one it asked for, or for the rest of a turn the next
// profile of the primary's fallback chain after the model stayed unavailable (model-step.ts).
import { z } from 'zod';

export function modelCarry() {
  return z.object({ profile: z.string().optional(), fallbackTurn: z.number().int().min(0).optional() });
}
type ModelCarry = z.infer<ReturnType<typeof modelCarry>>;

export class ModelChoice {
  #profile: string | undefined;
  /** The turn in which `profile` became a fallback; the next turn goes back to the primary. */
  #fallbackTurn: number | undefined;

  constructor(
    carried: ModelCarry | undefined,
    private readonly primary: string | undefined,
  ) {
    this.#profile = carried?.profile ?? primary;
    this.#fallbackTurn = carried?.fallbackTurn;
  }

  carry(): ModelCarry {
    return {
      ...(this.#profile !== undefined ? { profile: this.#profile } : {}),
      ...(this.#fallbackTurn !== undefined ? { fallbackTurn: this.#fallbackTurn } : {}),
    };
  }

  get profile(): string | undefined {
    return this.#profile;
  }

  /** A fallback lasts for the turn it was needed in: returns true when this turn goes back to the primary. */
  backToPrimary(turn: number): boolean {
    if (this.#fallbackTurn === undefined || this.#fallbackTurn === turn) return false;
    this.#fallbackTurn = undefined;
    this.#profile = this.primary;
    return true;
  }

  fallBackTo(profile: string, turn: number): void {
    this.#profile = profile;
    this.#fallbackTurn = turn;
  }
}
