// The conversation's live events for the streamed paths (handle.events(), src/events/client.ts), from a cursor
// taken before the message is sent.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConversationHandle } from '../client';
import type { ConversationEvent } from '../shared/events';

/**
 * Where a turn's events start: the offset of the next step event. When the offset cannot be read, undefined:
 * the events then start at the oldest kept, and the stream skips to the turn.started of its own text.
 */
export async function eventsCursor(handle: ConversationHandle): Promise<number | undefined> {
  return handle.eventsOffset().catch(() => undefined);
}

/** The events from the cursor on until `signal` aborts or the conversation closes. */
function liveEvents(handle: ConversationHandle, from: number | undefined, signal: AbortSignal): AsyncGenerator<ConversationEvent> {
  return handle.events({ ...(from !== undefined ? { from } : {}), signal });
}

/** A look again after the first look failed (the server away for a moment, a look that failed under load). */
const RETRY_MS = 1_000;

/**
 * Hands each event from the cursor on to `each` until it returns true, `signal` aborts or the conversation closes.
 * A first look that fails is tried again, for as long as the request is open: its client must still hear that the
 * turn waits for a person. Once events came, the iterator itself rides out an outage (up to its maxOutageMs); an
 * error after that ends the following (a new iterator would send the live text of the step in flight again).
 * `log` hears the first error of a streak and the last.
 */
export async function followEvents(
  handle: ConversationHandle,
  cursor: number | undefined,
  signal: AbortSignal,
  log: (line: string) => void,
  each: (e: ConversationEvent) => boolean,
): Promise<void> {
  let delivered = false;
  let failing = false;
  while (!signal.aborted) {
    try {
      for await (const e of liveEvents(handle, cursor, signal)) {
        delivered = true;
        if (each(e)) return;
      }
      return;
    } catch (err) {
      if (signal.aborted) return;
      const why = `events of ${handle.id}: ${(err as Error).message}`;
      if (delivered) return log(`${why}; no longer followed`);
      if (!failing) log(`${why}; looking again`);
      failing = true;
    }
    await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
  }
}
