// The conversation's live events for the streamed paths: `handle.events()` / `handle.eventsOffset()`
// (src/client.ts) when this build has them; otherwise the steps of the `state` query, as `tool.started`-like
// notes, so a stream still shows progress before the answer.
import type { ConversationHandle } from '../client';
import type { ConversationEvent } from '../shared/events';

export interface EventsApi {
  events(opts?: { from?: number; signal?: AbortSignal }): AsyncGenerator<ConversationEvent>;
  eventsOffset(): Promise<number>;
}

export function eventsApi(handle: ConversationHandle): EventsApi | undefined {
  const h = handle as unknown as Partial<EventsApi>;
  return typeof h.events === 'function' && typeof h.eventsOffset === 'function' ? (h as EventsApi) : undefined;
}

/** Where a turn's events start: the offset of the next step event (taken before the message is sent). */
export async function eventsCursor(handle: ConversationHandle): Promise<{ from?: number; stepsAfter?: number }> {
  const api = eventsApi(handle);
  if (api) return { from: await api.eventsOffset() };
  const s = await handle.state().catch(() => undefined);
  return { stepsAfter: s?.lastStep?.step ?? 0 };
}

/**
 * The events from the cursor on until `signal` aborts or the conversation closes. Without the events API: the
 * state query's new steps every 300 ms as `tool.finished` events (model steps too, named as their summary says).
 */
export async function* liveEvents(
  handle: ConversationHandle,
  cursor: { from?: number; stepsAfter?: number },
  signal: AbortSignal,
): AsyncGenerator<ConversationEvent> {
  const api = eventsApi(handle);
  if (api) {
    yield* api.events({ ...(cursor.from !== undefined ? { from: cursor.from } : {}), signal });
    return;
  }
  let after = cursor.stepsAfter ?? 0;
  while (!signal.aborted) {
    const s = await handle.state({ stepsAfter: after }).catch(() => undefined);
    for (const step of s?.steps ?? []) {
      after = Math.max(after, step.step);
      if (step.kind === 'model') continue;
      yield {
        type: 'tool.started',
        callId: String(step.step),
        name: step.name,
        summary: `${step.ok ? '' : '(failed) '}${step.summary}`,
        conversationId: handle.id,
        runId: '',
        offset: step.step,
        at: Date.now(),
      };
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}
