// Answers the queries of a finished conversation without a worker. Temporal answers a query on a closed run by
// replaying it on a worker that polls its task queue; with none polling (a cluster whose workers are stopped),
// `hermes status` and `hermes inspect --step` waited 30 s and failed. Here the run's history is replayed in this
// process with this version's workflow code plus a probe interceptor (probe.ts), and the run's own query handlers
// answer at its end: the same answers a worker would give, nothing executed, nothing recorded.
// A run whose history ends without the workflow closing it (terminated, timed out) cannot be answered this way.
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { cachedWorkflowBundle } from '../startup/bundle';
import { dataConverter } from '../codec';
import { installRuntimeLogger } from '../observe/logger';
import { replayErrorMessage } from './replay';
import type { ConversationState } from '../shared/contract';
import type { ContextQueryArgs, ContextSlice } from '../shared/wire';
import type { ProbeAnswers, ProbeSinks } from '../workflows/engine/replay-probe';
import type { InjectedSinks } from '@temporalio/worker';

export interface ReplayedRun {
  state?: ConversationState;
  /** The `context` query, answered as the run's handler answers it. */
  context(args: ContextQueryArgs): ContextSlice;
}

/**
 * Replays one run (`runId`; default the latest) and returns what its queries answer, or undefined when the run
 * cannot be answered so (it did not close itself, or does not replay with this version's code: `why` says).
 */
export async function replayRun(
  client: Client,
  workflowId: string,
  runId?: string,
  why?: (reason: string) => void,
): Promise<ReplayedRun | undefined> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  let answers: ProbeAnswers | undefined;
  const sinks: InjectedSinks<ProbeSinks> = {
    hermesReplayProbe: { answers: { fn: (_info, a) => void (answers = a), callDuringReplay: true } },
  };
  const converter = dataConverter();
  // The SDK's lines go through our logger, as in a worker (a client-only command installs it only now).
  installRuntimeLogger(undefined, { signals: false });
  try {
    await Worker.runReplayHistory(
      { workflowBundle: await cachedWorkflowBundle('probe'), sinks, ...(converter ? { dataConverter: converter } : {}) },
      history,
      workflowId,
    );
  } catch (err) {
    const message = replayErrorMessage(err as Error);
    // A store that cannot be read is not the code's fault: said as it is.
    why?.(message.startsWith('payload store:') ? message : `its history does not replay with this version's workflow code: ${message}`);
    return undefined;
  }
  if (!answers) {
    why?.('the run did not close itself (terminated or timed out): its queries have nothing to replay to');
    return undefined;
  }
  const { state, contexts } = answers;
  const current = contexts.at(-1)?.version ?? 0;
  return {
    ...(state ? { state: state as ConversationState } : {}),
    context({ version, from, to }) {
      const kept = contexts.find((c) => c.version === version);
      if (!kept) return { version: current, messages: [] };
      return { ...kept, messages: kept.messages.slice(from, to) };
    },
  };
}
