// A finished run's query, asked of the server with a short deadline: the history readers (inspect, export) and
// `hermes status` ask it before replaying the history here.
import type { Client } from '@temporalio/client';
import type { ReadableConversation } from './reader';

/** How long a finished run's query may take on the server (a worker replays it) before it is replayed here. */
export const CLOSED_QUERY_MS = 5_000;

/**
 * Runs a query of a finished run on the server with a short deadline. DescribeTaskQueue lists a worker for minutes
 * after it stopped, so "no poller" settles it at once, but a poller listed does not guarantee an answer.
 */
export async function closedRunQuery<T>(
  client: Client,
  handle: Pick<ReadableConversation, 'workerPolling'>,
  taskQueue: string,
  query: () => Promise<T>,
): Promise<T> {
  if (!(await handle.workerPolling().catch(() => true))) throw new Error(`no worker polls task queue ${taskQueue}`);
  try {
    return await client.connection.withDeadline(Date.now() + CLOSED_QUERY_MS, query);
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
