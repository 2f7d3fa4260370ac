// What `hermes run` says about its webhook delivery. The delivery is a workflow of its own that starts when the
// run ends. With the embedded server the only worker is this process's, which stops when the command does: the
// POST would wait for the next hermes command, so the command waits for it (a while) and says how it went. With
// a cluster the workers deliver on their own; the line names the delivery workflow to look at.
import { WorkflowFailedError } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hermes } from '../client';
import type { DeliveryNote } from '../shared/contract';

/** Long enough for a receiver that answers at once, or after the first retries (2 s, 4 s…). */
const EMBEDDED_WAIT_MS = 20_000;

export async function reportDelivery(hermes: Hermes, note: DeliveryNote, waitMs = EMBEDDED_WAIT_MS): Promise<string> {
  if (!('workflowId' in note)) return `webhook: not sent (${note.skipped})`;
  if (note.error) return `webhook: ${note.error}`;
  const look = `temporal workflow describe -w ${note.workflowId}`;
  if (!hermes.target?.embedded) return `webhook: delivery ${note.workflowId} (${look})`;
  type Delivered = { status: number; attempts: number };
  // The timer is cleared once the delivery is over: a pending one would keep the command alive.
  const timer = new AbortController();
  const outcome: Delivered | 'waiting' | Error = await Promise.race([
    hermes.client.workflow.getHandle(note.workflowId).result() as Promise<Delivered>,
    sleep(waitMs, 'waiting' as const, { signal: timer.signal }),
  ])
    .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))))
    .finally(() => timer.abort());
  if (outcome === 'waiting')
    return `webhook: still retrying (${note.workflowId}); it goes on while a worker runs (hermes worker, or any hermes command here)`;
  if (outcome instanceof WorkflowFailedError) return `webhook: not delivered: ${outcome.cause?.message ?? outcome.message}`;
  if (outcome instanceof Error) return `webhook: delivery ${note.workflowId}: ${outcome.message}`;
  return `webhook: delivered (HTTP ${outcome.status}, attempt ${outcome.attempts})`;
}
