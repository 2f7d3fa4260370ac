// What the steps of a conversation return to the loop. A leaf module: everything in the loop imports it and
// it imports nothing of the loop.
import type { RunStatus } from '../../shared/contract';

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
