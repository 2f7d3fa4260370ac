// What the steps of a conversation return to the loop. A leaf module: everything in the loop imports it and
// it imports nothing of the loop.
import type { RunStatus } from '../../shared/contract';
import type { ToolCall } from '../../shared/wire';

/**
 * Marks work cut short by a stop request — an interrupt, the wall-clock budget or workflow cancellation: a
 * stretch of steps, a clarify question or an approval wait. Whoever gets it applies the cause.
 */
export const STOPPED = Symbol('stopped');
export type Stopped = typeof STOPPED;

/** How a turn ended. */
export interface TurnOutcome {
  status: RunStatus;
  answer: string;
  reason?: string;
  error?: string;
}

/** What the model wants next, after one model step. */
export type ModelOutcome =
  | { kind: 'answer'; text: string }
  | { kind: 'tools'; calls: ToolCall[] }
  | { kind: 'again' }
  /** The model keeps making tool calls that cannot run: stop it with a summary. */
  | { kind: 'invalid'; detail: string }
  | { kind: 'fail'; reason: string; error: string };
