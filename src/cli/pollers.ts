// "No worker, clear word": a conversation that has not started within a few seconds is usually one that no
// worker polls for. The task queue's pollers (DescribeTaskQueue) tell; without any, the user is told once
// what to start, and the command goes on waiting (or gives up, with run --no-wait).
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConversationHandle, Hermes } from '../client';

/** How long a conversation may take to start before its task queue's pollers are looked at. */
export const WORKER_CHECK_AFTER_MS = 5_000;

export function noWorkerMessage(hermes: Hermes): string {
  return `no worker is polling task queue ${hermes.taskQueue} on ${hermes.address ?? 'the Temporal server'} — start one with \`npx hermes worker\``;
}

export interface WorkerWatchOptions {
  /** True once the conversation has been seen running (its state query answered). */
  started: () => boolean;
  /** Where the message goes. Default: stderr. */
  say?: (line: string) => void;
  /** Called after the message is said (run --no-wait gives up here). */
  onMissing?: () => void;
  /** Ends the watch. */
  signal: AbortSignal;
  afterMs?: number;
}

/**
 * After `afterMs` (default 5 s) of a conversation not started, looks at the pollers of the client's task queue
 * and says so once when there are none. Never throws; an in-process (embedded) worker needs no watching.
 */
export async function watchWorker(hermes: Hermes, o: WorkerWatchOptions): Promise<void> {
  if (hermes.target?.embedded) return;
  await sleep(o.afterMs ?? WORKER_CHECK_AFTER_MS, undefined, { signal: o.signal, ref: false }).catch(() => undefined);
  if (o.signal.aborted || o.started()) return;
  let polling: boolean;
  try {
    polling = await hermes.workerPolling();
  } catch {
    return; // cannot tell (no permission, server down): say nothing rather than something wrong
  }
  if (polling || o.signal.aborted || o.started()) return;
  (o.say ?? ((l: string) => void process.stderr.write(`${l}\n`)))(noWorkerMessage(hermes));
  o.onMissing?.();
}

/** How long a finished run's query may take on the server (a worker replays it) before it is replayed here. */
export const CLOSED_QUERY_MS = 5_000;

/**
 * Runs a query of a finished run on the server with a short deadline. DescribeTaskQueue lists a worker for minutes
 * after it stopped, so "no poller" settles it at once, but a poller listed does not guarantee an answer.
 */
export async function closedRunQuery<T>(hermes: Hermes, handle: ConversationHandle, taskQueue: string, query: () => Promise<T>): Promise<T> {
  if (!(await handle.workerPolling().catch(() => true))) throw new Error(`no worker polls task queue ${taskQueue}`);
  try {
    return await hermes.client.connection.withDeadline(Date.now() + CLOSED_QUERY_MS, query);
  } catch (err) {
    if (deadlineHit(err)) {
      throw new Error(`no worker on task queue ${taskQueue} answered within ${CLOSED_QUERY_MS / 1000} s`, { cause: err });
    }
    // A worker that has just stopped is still listed, and the server may give up on it with another error than
    // the deadline ("Failed to query Workflow", seen under load): the caller replays here, so say which it was.
    if ((err as Error).message?.startsWith('Failed to query Workflow')) {
      throw new Error(`no worker on task queue ${taskQueue} answered (${(err as Error).message})`, { cause: err });
    }
    throw err;
  }
}

/** gRPC DEADLINE_EXCEEDED anywhere in the cause chain (the client wraps it: "Failed to query Workflow"). */
function deadlineHit(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++) {
    if (e.code === 4) return true;
  }
  return false;
}
