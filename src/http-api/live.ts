// The conversation's live events for the streamed paths (handle.events(), src/events/client.ts), from a cursor
// taken before the message is sent.
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
export function liveEvents(handle: ConversationHandle, from: number | undefined, signal: AbortSignal): AsyncGenerator<ConversationEvent> {
  return handle.events({ ...(from !== undefined ? { from } : {}), signal });
}
