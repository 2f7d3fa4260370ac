// Stop control: what can cut the step in flight short — an interrupt, the wall-clock budget, a workflow cancel —
// as one stop-reason union, and the cancellation scope each stretch of steps runs in (see `stoppable`).
import { CancellationScope, CancelledFailure, isCancellation, sleep } from '@temporalio/workflow';
import type { InterruptArgs } from '../../shared/contract';
import { STOPPED, type Stopped } from '../loop/turn-outcome';

/** Why the step in flight is being stopped; the first that applies wins (a cancel beats an interrupt). */
export type StopReason = 'cancel' | 'interrupt' | 'time';

export class StopControl {
  #interrupt: InterruptArgs | undefined;
  #cancelRequested = false;
  #timeUp = false;
  #scope: CancellationScope | undefined;
  /** The call the latest stop cut short, until the interrupt's trace names it. */
  #cut: string | undefined;

  /** The stop that applies now, if any. */
  get reason(): StopReason | undefined {
    if (this.#cancelRequested) return 'cancel';
    if (this.#interrupt) return 'interrupt';
    return this.#timeUp ? 'time' : undefined;
  }
  get cancelRequested(): boolean {
    return this.#cancelRequested;
  }
  get timeUp(): boolean {
    return this.#timeUp;
  }
  get interruptPending(): boolean {
    return this.#interrupt !== undefined;
  }

  /** Why the step in flight is being stopped, worded for the tool result the model reads. */
  cause(): string {
    const r = this.reason;
    if (r === 'cancel') return 'because the conversation was cancelled';
    if (r === 'interrupt') return 'by interrupt';
    return 'because the time budget ran out';
  }

  /**
   * An interrupt: cuts the step in flight short. In task mode it may arrive before the loop starts (buffered in
   * the run's first activation): the loop applies it at its first check. Two redirects in a row keep both messages.
   */
  interrupt(args: InterruptArgs): void {
    const prev = this.#interrupt?.message;
    const merged = prev && args.message ? `${prev}\n\n${args.message}` : (args.message ?? prev);
    this.#interrupt = { ...(args.reason ? { reason: args.reason } : {}), ...(merged ? { message: merged } : {}) };
    this.cutStep();
  }

  /** Takes the pending interrupt (and the call it cut, for its trace). */
  takeInterrupt(): { args: InterruptArgs; cut: string | undefined } | undefined {
    const args = this.#interrupt;
    if (!args) return undefined;
    const cut = this.#cut;
    this.#interrupt = undefined;
    this.#cut = undefined;
    return { args, cut };
  }

  /** A chat turn starts: a call a time-budget stop cut in an earlier turn is not what a later interrupt cuts. */
  newTurn(): void {
    this.#cut = undefined;
  }

  /** Workflow cancellation reaches the step in flight through the scope tree; remembered for the clean-up. */
  watchCancel(): void {
    CancellationScope.current().cancelRequested.catch(() => {
      this.#cancelRequested = true;
    });
  }

  /** The wall-clock budget is a durable timer: it survives worker restarts and continue-as-new. */
  startClock(startedAtMs: number, maxDurationSec: number): void {
    const max = maxDurationSec * 1000;
    if (max <= 0) return;
    const left = startedAtMs + max - Date.now();
    const fire = () => {
      this.#timeUp = true;
      this.cutStep();
    };
    if (left <= 0) return fire();
    sleep(left).then(fire, () => undefined);
  }

  /**
   * Runs `fn` (a stretch of steps) in a fresh cancellation scope, so an interrupt, the wall-clock budget or a
   * workflow cancel can cut the step in flight short (activities get cancellation; the model's HTTP request is
   * aborted). A cut step ends the stretch with STOPPED; the caller applies the cause and starts a new stretch.
   * One scope per stretch, not per step: see docs/design-notes.md, "Control".
   */
  async stoppable<T>(fn: () => Promise<T>): Promise<T | Stopped> {
    const scope = new CancellationScope();
    // Born cancelled: the workflow itself is being cancelled (its root scope is).
    if (scope.consideredCancelled) throw new CancelledFailure('conversation cancelled');
    this.#scope = scope;
    try {
      return await scope.run(fn);
    } catch (err) {
      if (isCancellation(err) && this.reason) return STOPPED;
      throw err;
    } finally {
      this.#scope = undefined;
    }
  }

  /** The stretch's scope was cancelled: no activity can start in it, so the stretch must end. */
  stretchEnded(): boolean {
    return Boolean(this.#scope?.consideredCancelled);
  }

  /** Cuts the step in flight short (see stoppable); between steps it ends the stretch. */
  cutStep(): void {
    this.#scope?.cancel();
  }

  /** A call that a stop cut short: the interrupt's trace names it. */
  noteCut(what: string, err: unknown): void {
    if (isCancellation(err) && this.reason) this.#cut = what;
  }

  /** After a turn: an interrupt that arrived too late for it (e.g. during the final summary call) must not hit the next one. */
  dropLateInterrupt(): InterruptArgs | undefined {
    const late = this.#interrupt;
    this.#interrupt = undefined;
    return late;
  }
}
