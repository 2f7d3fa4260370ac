// The meter: what the budgets are measured against — iterations, model and tool calls, tokens and cost (the
// sub-agents' included), elapsed time — and the budget warnings already given.
import { workflowInfo } from '@temporalio/workflow';
import { z } from 'zod';
import { usageSchema, type Limits, type Usage } from '../../shared/contract';
import type { BudgetInput } from '../rules/budget';
import { addUsage, ZERO_USAGE } from '../rules/usage';

export function meterCarry() {
  const n = z.number().int().min(0);
  return z.object({
    iteration: n,
    usage: usageSchema(),
    modelCalls: n,
    toolCalls: n,
    runs: n,
    /** Secrets the redactor replaced in this conversation's tool outputs and model replies. */
    redactions: n,
    /** Budget kinds the model was warned about in this turn ('unpriced' once per conversation). */
    warned: z.array(z.string()),
    startedAtMs: z.number(),
    turn: n,
    turnStartIteration: n,
    /** When the current chat turn began (a turn's webhook reports its latency); absent before turn 2. */
    turnStartedAtMs: z.number().optional(),
  });
}
export type MeterCarry = z.infer<ReturnType<typeof meterCarry>>;

export class Meter {
  #iteration: number;
  #usage: Usage;
  #modelCalls: number;
  #toolCalls: number;
  #redactions: number;
  #warned: string[];
  #turn: number;
  #turnStartIteration: number;
  #turnStartedAtMs: number | undefined;
  readonly runs: number;
  readonly startedAtMs: number;
  readonly modelCallsAtRunStart: number;
  readonly historyBytesAtRunStart: number;

  constructor(carried: MeterCarry | undefined, hasPrompt: boolean) {
    this.#iteration = carried?.iteration ?? 0;
    this.#usage = carried?.usage ?? ZERO_USAGE;
    this.#modelCalls = carried?.modelCalls ?? 0;
    this.#toolCalls = carried?.toolCalls ?? 0;
    this.#redactions = carried?.redactions ?? 0;
    this.#warned = carried?.warned ?? [];
    this.startedAtMs = carried?.startedAtMs ?? Date.now();
    // A fresh conversation with a prompt starts with turn 1; a continued run resumes the turn it was in.
    this.#turn = carried?.turn ?? (hasPrompt ? 1 : 0);
    this.#turnStartIteration = carried?.turnStartIteration ?? 0;
    this.#turnStartedAtMs = carried?.turnStartedAtMs;
    this.runs = (carried?.runs ?? 0) + 1;
    this.modelCallsAtRunStart = this.#modelCalls;
    this.historyBytesAtRunStart = workflowInfo().historySize;
  }

  get iteration(): number {
    return this.#iteration;
  }
  get usage(): Usage {
    return this.#usage;
  }
  get modelCalls(): number {
    return this.#modelCalls;
  }
  get toolCalls(): number {
    return this.#toolCalls;
  }
  get redactions(): number {
    return this.#redactions;
  }
  get turn(): number {
    return this.#turn;
  }
  /** When the current turn began (workflow time): the first turn began with the conversation. */
  get turnStartedAtMs(): number {
    return this.#turnStartedAtMs ?? this.startedAtMs;
  }
  /** Iterations used in the current turn (the iteration budget is per turn). */
  get turnIterations(): number {
    return this.#iteration - this.#turnStartIteration;
  }

  carry(): MeterCarry {
    const { runs, startedAtMs } = this;
    return {
      ...{ iteration: this.#iteration, usage: this.#usage, modelCalls: this.#modelCalls, toolCalls: this.#toolCalls, runs },
      ...{ redactions: this.#redactions, warned: this.#warned, startedAtMs, turn: this.#turn, turnStartIteration: this.#turnStartIteration },
      ...(this.#turnStartedAtMs !== undefined ? { turnStartedAtMs: this.#turnStartedAtMs } : {}),
    };
  }

  /** A model step begins: one iteration, whatever it takes to get its reply (retries, a compression, a fallback). */
  stepTaken(): void {
    this.#iteration++;
  }
  /** Returns the call's number: `hermes inspect --step` and the state query's modelStep number every model call. */
  modelCalled(): number {
    return ++this.#modelCalls;
  }
  toolCalled(): void {
    this.#toolCalls++;
  }
  spend(usage: Usage): void {
    this.#usage = addUsage(this.#usage, usage);
  }
  /** Counts what a redactor replaced; the step record carries it when there was any. */
  redacted(count: number | undefined): { redactions?: number } {
    if (!count) return {};
    this.#redactions += count;
    return { redactions: count };
  }
  /** True the first time `kind` is warned about (per turn for budgets). */
  warn(kind: string): boolean {
    if (this.#warned.includes(kind)) return false;
    this.#warned.push(kind);
    return true;
  }
  warnedOf(): readonly string[] {
    return this.#warned;
  }

  /** Chat: the next user message starts a turn with a fresh iteration budget. */
  newTurn(): void {
    this.#turn++;
    this.#turnStartIteration = this.#iteration;
    this.#turnStartedAtMs = Date.now();
    this.#warned = this.#warned.filter((w) => w !== 'iterations');
  }

  budgetInput(limits: Limits, timeUp: boolean): BudgetInput {
    return {
      limits,
      usage: this.#usage,
      iterations: this.turnIterations,
      elapsedSec: timeUp ? limits.maxDurationSec : (Date.now() - this.startedAtMs) / 1000,
    };
  }
}
