// A chat's mailbox: the user messages waiting for their turn, the answers of the latest turns (what each `send`
// update returns), whether a turn is under way and whether the chat has ended.
import { z } from 'zod';
import { turnResultSchema, type TurnResult } from '../../shared/contract';

const TURNS_KEPT = 20;

export function chatCarry() {
  return z.object({
    inbox: z.array(z.string()),
    turnResults: z.array(turnResultSchema()),
    ended: z.boolean(),
    /** A turn is under way: running now, or carried over from the previous run and still to be resumed. */
    turnInProgress: z.boolean(),
    /** The latest turn wrote memory: the next turn's system prompt recalls it (memory-recall.ts). */
    memoryWritten: z.boolean(),
  });
}
export type ChatCarry = z.infer<ReturnType<typeof chatCarry>>;

export class ChatState {
  #inbox: string[];
  #turnResults: TurnResult[];
  #ended: boolean;
  #turnInProgress: boolean;
  #memoryWritten: boolean;

  constructor(carried: ChatCarry | undefined, hasPrompt: boolean) {
    this.#inbox = carried?.inbox ?? [];
    this.#turnResults = carried?.turnResults ?? [];
    this.#ended = carried?.ended ?? false;
    // A fresh chat with a prompt starts with turn 1; a continued run resumes the turn it was in.
    this.#turnInProgress = carried ? carried.turnInProgress : hasPrompt;
    this.#memoryWritten = carried?.memoryWritten ?? false;
  }

  carry(): ChatCarry {
    return {
      ...{ inbox: this.#inbox, turnResults: this.#turnResults, ended: this.#ended },
      ...{ turnInProgress: this.#turnInProgress, memoryWritten: this.#memoryWritten },
    };
  }

  get ended(): boolean {
    return this.#ended;
  }
  get turnInProgress(): boolean {
    return this.#turnInProgress;
  }
  get waiting(): number {
    return this.#inbox.length;
  }
  get lastResult(): TurnResult | undefined {
    return this.#turnResults[this.#turnResults.length - 1];
  }

  /** Queues a user message; returns the number its turn will have (`send` waits for that turn's result). */
  queue(text: string, turn: number): number {
    this.#inbox.push(text);
    return turn + this.#inbox.length;
  }
  /** A redirect that came too late for its turn goes first. */
  queueFirst(text: string): void {
    this.#inbox.unshift(text);
  }
  next(): string | undefined {
    return this.#inbox.shift();
  }
  end(): void {
    this.#ended = true;
  }
  turnStarted(): void {
    this.#turnInProgress = true;
  }
  turnFinished(): void {
    this.#turnInProgress = false;
  }
  resultOf(turn: number): TurnResult | undefined {
    return this.#turnResults.find((r) => r.turn === turn);
  }
  addResult(result: TurnResult): void {
    this.#turnResults.push(result);
    if (this.#turnResults.length > TURNS_KEPT) this.#turnResults.splice(0, this.#turnResults.length - TURNS_KEPT);
  }
  memoryChanged(): void {
    this.#memoryWritten = true;
  }
  /** True once after a turn that wrote memory. */
  takeMemoryChange(): boolean {
    const was = this.#memoryWritten;
    this.#memoryWritten = false;
    return was;
  }
}
