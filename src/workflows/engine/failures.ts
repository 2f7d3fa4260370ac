// Reads a failed activity back into the stable type strings of src/shared/errors.ts.
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { FailureType } from '../../shared/errors';

export interface FailureInfo {
  type: string;
  message: string;
  /** The activity timed out (e.g. its worker died): its outcome is unknown. */
  timedOut: boolean;
}

export const FALLBACK_TRIGGERS: string[] = [
  FailureType.ModelUnavailable,
  FailureType.ModelTimeout,
  FailureType.ModelNetwork,
  FailureType.RateLimited,
];

export function describeFailure(err: unknown): FailureInfo {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    return { type: cause.type ?? 'ApplicationFailure', message: cause.message, timedOut: false };
  }
  if (cause instanceof TimeoutFailure) {
    return {
      type: FailureType.ModelTimeout,
      message: `activity timed out (${cause.timeoutType === undefined ? 'timeout' : String(cause.timeoutType)})`,
      timedOut: true,
    };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return { type: 'Unknown', message, timedOut: false };
}
