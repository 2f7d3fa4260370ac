// A circuit breaker per HTTP tool and worker process. A tool whose API keeps failing (5xx, timeouts, network
// errors — not 4xx, which are the caller's fault) is skipped for a cool-down with a result that says so, instead
// of every conversation spending its retries and minutes on an API that is down. After the cool-down one trial
// call goes through (half-open): success closes the circuit, failure opens it for another cool-down.

export type CircuitStateName = 'closed' | 'open' | 'half-open';

export interface CircuitState {
  tool: string;
  state: CircuitStateName;
  /** Consecutive failures counted so far. */
  failures: number;
  /** Failures that open the circuit. */
  threshold: number;
  /** While open: when the trial call will be let through (ISO time). */
  openUntil?: string;
  lastError?: string;
}

export interface CircuitOptions {
  failures: number;
  cooldownMs: number;
}

export class Circuit {
  private failures = 0;
  private openedAt?: number;
  private trialInFlight = false;
  private lastError?: string;

  constructor(
    readonly tool: string,
    public options: CircuitOptions,
    private readonly now: () => number = Date.now,
    /** Called after every change of the counted state (to publish it). */
    private readonly changed: () => void = () => undefined,
  ) {}

  /** Undefined when a call may go ahead (and, half-open, marks it as the trial); else why it is skipped. */
  admit(): string | undefined {
    if (this.openedAt === undefined) return undefined;
    const left = this.openedAt + this.options.cooldownMs - this.now();
    if (left > 0) {
      return (
        `Skipped: the HTTP tool ${this.tool} failed ${this.failures} times in a row (last: ${this.lastError ?? 'unknown'}); ` +
        `its circuit is open for another ${Math.ceil(left / 1000)} s. Try something else or try again later.`
      );
    }
    if (this.trialInFlight) return `Skipped: the HTTP tool ${this.tool} is being tried again after repeated failures; try again in a moment.`;
    this.trialInFlight = true;
    return undefined;
  }

  success(): void {
    const was = this.failures > 0 || this.openedAt !== undefined;
    this.failures = 0;
    this.openedAt = undefined;
    this.trialInFlight = false;
    this.lastError = undefined;
    if (was) this.changed();
  }

  failure(error: string): void {
    this.failures++;
    this.lastError = error;
    // A failed trial re-opens at once; a closed circuit opens at the threshold.
    if (this.trialInFlight || this.failures >= this.options.failures) this.openedAt = this.now();
    this.trialInFlight = false;
    this.changed();
  }

  /** The call ended without a verdict on the API (a 4xx, an abort): a trial slot is given back. */
  neutral(): void {
    this.trialInFlight = false;
  }

  state(): CircuitState {
    const base = { tool: this.tool, failures: this.failures, threshold: this.options.failures, lastError: this.lastError };
    if (this.openedAt === undefined) return { ...base, state: 'closed' };
    const until = this.openedAt + this.options.cooldownMs;
    if (until > this.now()) return { ...base, state: 'open', openUntil: new Date(until).toISOString() };
    return { ...base, state: 'half-open' };
  }
}

/** The circuits of one worker process, by tool name (kept across re-creations of the tools, e.g. a reload). */
export class Circuits {
  private readonly byTool = new Map<string, Circuit>();
  private readonly listeners = new Set<() => void>();
  constructor(private readonly now: () => number = Date.now) {}

  get(tool: string, options: CircuitOptions): Circuit {
    let c = this.byTool.get(tool);
    if (!c) {
      this.byTool.set(tool, (c = new Circuit(tool, options, this.now, () => this.notify())));
      this.notify();
    } else c.options = options;
    return c;
  }

  /** Calls fn after every change (a tool added, a failure, a recovery); returns the unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private notify(): void {
    for (const fn of this.listeners) fn();
  }

  states(): CircuitState[] {
    return [...this.byTool.values()].map((c) => c.state());
  }
}

/** The worker process's circuits, used unless createHttpTools is given others (tests). */
export const workerCircuits = new Circuits();

/** Each HTTP tool's circuit in this process (for `hermes tools` and the worker's status). */
export function httpCircuitStates(circuits: Circuits = workerCircuits): CircuitState[] {
  return circuits.states();
}
