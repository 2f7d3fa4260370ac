// Timing inside the product's activities: how long the model activity spends getting its context (rebuilt
// from this worker's results, sent whole with a run's first call, or by a `context` query on a digest mismatch)
// and how long each activity takes in the worker. Wraps the real createActivities; no change to src/.
import type { Client } from '@temporalio/client';
import { ContextCache } from '../src/activities/context';
import { createActivities, type ActivityDeps } from '../src/activities';
import type { ChatMessage, ContextRef } from '../src/shared/wire';

export class TimedContextCache extends ContextCache {
  /** Duration of every `get`, and whether it queried the workflow. */
  readonly calls: Array<{ ms: number; queried: boolean }> = [];
  override async get(client: Client, workflowId: string, runId: string, ref: ContextRef): Promise<ChatMessage[]> {
    const q0 = this.stats.queries;
    const t0 = performance.now();
    try {
      return await super.get(client, workflowId, runId, ref);
    } finally {
      this.calls.push({ ms: performance.now() - t0, queried: this.stats.queries > q0 });
    }
  }
}

export function instrumentedActivities(deps: ActivityDeps) {
  const cache = new TimedContextCache();
  const acts = createActivities({ ...deps, contextCache: cache });
  const callModelMs: number[] = [];
  const runToolMs: number[] = [];
  return {
    cache,
    callModelMs,
    runToolMs,
    reset() {
      cache.calls.length = 0;
      callModelMs.length = 0;
      runToolMs.length = 0;
    },
    activities: {
      ...acts,
      callModel: timed(acts.callModel, callModelMs),
      runTool: timed(acts.runTool, runToolMs),
    },
  };
}

/** `fn`, recording each call's duration (ms) into `into`. */
function timed<A extends unknown[], R>(fn: (...args: A) => Promise<R>, into: number[]) {
  return async (...args: A): Promise<R> => {
    const t0 = performance.now();
    try {
      return await fn(...args);
    } finally {
      into.push(performance.now() - t0);
    }
  };
}
