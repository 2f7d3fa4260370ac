// Update validators reject by throwing, and the failure goes back to whoever sent the update: the Web UI, the
// stock CLI, our client. They need the reason, not the workflow's source: a stack trace of the bundled
// workflow code says nothing to a person and shows file paths of the worker.

import { ApplicationFailure } from '@temporalio/workflow';

/** Wraps a validator so that a rejection carries its message and no stack trace. */
export function rejecting<A extends unknown[]>(validate: (...args: A) => void): (...args: A) => void {
  return (...args) => {
    try {
      validate(...args);
    } catch (err) {
      // Not retryable (sending the same update again gets the same answer); the name stays the failure's type,
      // which callers match on (MemoryWriteError).
      const e = ApplicationFailure.create({
        message: err instanceof Error ? err.message : String(err),
        type: err instanceof Error ? err.name : 'Error',
        nonRetryable: true,
      });
      e.stack = '';
      throw e;
    }
  };
}
