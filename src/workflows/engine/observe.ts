// What the workflow tells observers, replay-safe: lifecycle lines through the SDK's workflow logger (a sink: not
// called while replaying, so a line is written once however often the code replays), and the `invoke_agent` span
// around each turn when the bundle has the tracing interceptors (src/workflows/engine/interceptors.ts installs
// the hook; without it a turn runs as it is, and this module imports nothing of OpenTelemetry).
import { log } from '@temporalio/workflow';

export interface TurnSpanInfo {
  turn: number;
  /** The first turn this run executes: its span continues the run's trace; later ones start a trace each. */
  first: boolean;
  agent: string;
}

export type TurnSpanHook = <T>(info: TurnSpanInfo, fn: () => Promise<T>, outcome: (r: T) => Record<string, string | number>) => Promise<T>;

let hook: TurnSpanHook | undefined;

export function setTurnSpanHook(h: TurnSpanHook): void {
  hook = h;
}

/** Conversations whose run has begun a turn (keyed by the state object: one per run). */
const begun = new WeakSet<object>();

/** Runs one turn inside its span (when traced). */
export function inTurnSpan<T>(
  c: object,
  info: Omit<TurnSpanInfo, 'first'>,
  fn: () => Promise<T>,
  outcome: (r: T) => Record<string, string | number>,
): Promise<T> {
  const first = !begun.has(c);
  begun.add(c);
  return hook ? hook({ ...info, first }, fn, outcome) : fn();
}

/** Lifecycle events: start, turn, end, interrupt, approval, compression, continue-as-new, notes. */
export type LifecycleEvent = 'start' | 'turn' | 'end' | 'continue_as_new' | 'note';

/** One line through the workflow logger (the worker adds workflowId, runId, workflowType, namespace, taskQueue). */
export function logEvent(event: LifecycleEvent, message: string, attrs: Record<string, unknown> = {}): void {
  log.info(message, { event, ...attrs });
}
