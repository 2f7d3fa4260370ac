// "No worker, clear word": a conversation that has not started within a few seconds is usually one that no
// worker polls for. The task queue's pollers (DescribeTaskQueue) tell; without any, the user is told once
// what to start, and the command goes on waiting (or gives up, with run --no-wait).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hermes } from '../client';

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
