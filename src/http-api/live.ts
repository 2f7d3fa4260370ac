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

/** A look again after the events could not be followed (the server away, a look that failed under load). */
const RETRY_MS = 1_000;

/**
 * Hands each event from the cursor on to `each` until it returns true, `signal` aborts or the conversation closes.
 * Events that cannot be followed are looked for again from where they stopped, for as long as the request is
 * open: its client must still hear that the turn waits for a person. `log` hears the first error of each streak.
 */
export async function followEvents(
  handle: ConversationHandle,
  cursor: number | undefined,
  signal: AbortSignal,
  log: (line: string) => void,
  each: (e: ConversationEvent) => boolean,
): Promise<void> {
  let from = cursor;
  let failing = false;
  while (!signal.aborted) {
    try {
      for await (const e of liveEvents(handle, from, signal)) {
        from = e.offset + 1;
        failing = false;
        if (each(e)) return;
      }
      return;
    } catch (err) {
      if (!signal.aborted && !failing) log(`events of ${handle.id}: ${(err as Error).message}; looking again`);
      failing = true;
    }
    await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
  }
}
