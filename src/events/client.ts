// `handle.events()`: a conversation's live events (src/shared/events.ts) as one async iterator. Step events come
// from the workflow's `events` query, asked from an offset; the text of the model call in flight from that
// call's latest heartbeat details (DescribeWorkflowExecution's pending activities), turned into deltas here.
// Neither is recorded, so watching costs the conversation no history. It follows continue-as-new (the query goes
// to the latest run; offsets keep counting), rides out a worker restart (the query waits for a worker; the
// retried model call is a new attempt, shown as `attempt.restarted`), rides out a server outage once it has
// read a page (as `result()` does), and ends when the conversation closes.
import type { WorkflowClient } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { decodeStoredValue } from '../storage/decode';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunStatus } from '../shared/contract';
import type { ConversationEvent, EventBase, EventsPage, LiveEvent, LiveReply, StepEventRecord } from '../shared/events';
import { eventsQuery } from '../shared/messages';
import { isServerUnreachable } from '../startup/connection';

export interface EventsOptions {
  /** The offset of the first step event wanted (default 0: the oldest the conversation still keeps). */
  from?: number;
  /** Ends the iteration. */
  signal?: AbortSignal;
  /** Milliseconds between two looks (default 200). */
  intervalMs?: number;
  /**
   * How long the server may stay unreachable, once a first page was read, before the iteration throws (default
   * 10 minutes, as `result()`). A server unreachable at the first look throws at once: a wrong address is said.
   */
  maxOutageMs?: number;
  /** Hears the first error of each outage it rides out (default: nothing is said). */
  onUnreachable?: (err: Error) => void;
}

const OPEN: ReadonlySet<RunStatus> = new Set(['running', 'waiting', 'idle']);

/** The model step being streamed: what of its text this subscriber has been given. */
interface Shown {
  step: number;
  attempt: number;
  answer: string;
  reasoning: string;
  calls: Map<number, string>;
}

export async function* conversationEvents(workflow: WorkflowClient, workflowId: string, opts: EventsOptions = {}): AsyncGenerator<ConversationEvent> {
  const intervalMs = opts.intervalMs ?? 200;
  const handle = workflow.getHandle(workflowId);
  let from = opts.from ?? 0;
  let base: Omit<EventBase, 'at'> = { conversationId: workflowId, runId: '', offset: Math.max(0, from - 1) };
  let shown: Shown | undefined;
  const at = () => ({ ...base, at: Date.now() });
  const live = (ev: LiveEvent): ConversationEvent => ({ ...at(), ...ev }) as ConversationEvent;

  /** Deltas that bring what this subscriber has of `channel` to `text`; a rewrite restarts it. */
  function* towards(channel: 'answer' | 'reasoning', text: string, attempt: number): Generator<ConversationEvent> {
    if (!shown) return;
    const had = shown[channel];
    if (text === had) return;
    if (text.startsWith(had)) {
      shown[channel] = text;
      yield live({ type: 'delta', attempt, channel, text: text.slice(had.length) });
      return;
    }
    // Not a continuation (a secret completed and was redacted, thinking split off): start the text over.
    shown[channel] = text;
    yield live({ type: 'text.replaced', attempt, channel, text });
  }

  const maxOutageMs = opts.maxOutageMs ?? 10 * 60_000;
  // The client retries a call for ~20 s while the server is down: an abort stops waiting for the call in flight
  // (left to end on its own). Not the SDK's withAbortSignal: it adds a listener to the signal per call and never
  // removes it, one more every look.
  const call = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = fn();
    const signal = opts.signal;
    if (!signal) return p;
    return new Promise<T>((resolve, reject) => {
      const stop = () => {
        p.catch(() => undefined);
        reject(new Error('stopped following'));
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
    });
  };
  // Set once the server answered about this conversation: an outage after that is ridden out.
  let read = false;
  let outageSince: number | undefined;
  let backoffMs = intervalMs;
  for (;;) {
    if (opts.signal?.aborted) return;
    let page: EventsPage | undefined;
    try {
      page = await call(() => handle.query(eventsQuery, { from }));
      read = true;
      outageSince = undefined;
    } catch (err) {
      if (opts.signal?.aborted) return;
      const d = await call(() => handle.describe()).catch((e: unknown) => ({ unreachable: isServerUnreachable(e) }));
      if (opts.signal?.aborted) return;
      if ('unreachable' in d) {
        // No such conversation, or no server at the first look: the caller says so.
        if (!d.unreachable || !read) throw err;
        const now = Date.now();
        if (outageSince === undefined) {
          outageSince = now;
          opts.onUnreachable?.(err as Error);
        }
        if (now - outageSince > maxOutageMs) throw err;
        // The offset is kept: what happened meanwhile comes with the first page after.
        backoffMs = outageSince === now ? intervalMs : Math.min(backoffMs * 2, 5_000);
        await sleep(backoffMs, undefined, { signal: opts.signal }).catch(() => undefined);
        continue;
      }
      read = true;
      outageSince = undefined;
      if (d.status.name !== 'RUNNING') return; // closed, and no worker to answer for the closed run
      // Running, but no worker answers now (restarting): the live text still comes from the server.
    }
    if (page) {
      if (page.first > from) {
        yield live({ type: 'gap', missed: page.first - from });
        from = page.first;
      }
      for (const ev of page.events) {
        base = {
          conversationId: ev.conversationId,
          runId: ev.runId,
          offset: ev.offset,
          ...(ev.turn !== undefined ? { turn: ev.turn } : {}),
          ...(ev.step !== undefined ? { step: ev.step } : {}),
        };
        yield* settle(ev);
        yield ev;
        from = ev.offset + 1;
      }
      from = Math.max(from, page.next);
    }
    if (page?.modelInFlight) yield* await liveText(page.modelInFlight.step);
    if (page && !OPEN.has(page.status) && !page.events.length && !page.modelInFlight) {
      const d = await handle.describe().catch(() => undefined);
      if (!d || d.status.name !== 'RUNNING') return;
    }
    if (page && page.events.length >= 100) continue; // more are waiting
    await sleep(intervalMs, undefined, { signal: opts.signal }).catch(() => undefined);
  }

  /** Before a model step's end: the rest of its recorded text, so the deltas add up to exactly that. */
  function* settle(ev: StepEventRecord): Generator<ConversationEvent> {
    if (ev.type === 'model.started') {
      shown = { step: ev.step ?? 0, attempt: 1, answer: '', reasoning: '', calls: new Map() };
      return;
    }
    if (ev.type !== 'model.finished') return;
    const current: Shown = shown?.step === ev.step && shown ? shown : { step: ev.step ?? 0, attempt: 1, answer: '', reasoning: '', calls: new Map() };
    shown = current;
    const attempt = current.attempt;
    if (ev.kind === 'answer' || ev.kind === 'tools') yield* towards('answer', ev.text ?? '', attempt);
    shown = undefined;
  }

  /** The deltas of the model call in flight since the last look, from its heartbeat details. */
  async function liveText(step: number): Promise<ConversationEvent[]> {
    const out: ConversationEvent[] = [];
    const d = await call(() => handle.describe()).catch(() => undefined);
    const pending = d?.raw.pendingActivities?.find((p) => p.activityType?.name === 'callModel');
    if (!d || !pending) return out;
    base = { ...base, runId: d.runId, step };
    const attempt = pending.attempt || 1;
    if (!shown || shown.step !== step) shown = { step, attempt, answer: '', reasoning: '', calls: new Map() };
    if (attempt > shown.attempt) {
      const reason = pending.lastFailure?.message ?? undefined;
      shown = { step, attempt, answer: '', reasoning: '', calls: new Map() };
      out.push(live({ type: 'attempt.restarted', attempt, ...(reason ? { reason } : {}) }));
    }
    const reply = await liveReplyOf(workflow, pending.heartbeatDetails?.payloads?.[0] ?? undefined);
    // Details left by an earlier attempt (a worker that died) are not this attempt's text.
    if (!reply || reply.step !== step || reply.attempt !== attempt) return out;
    out.push(...towards('reasoning', reply.reasoning, attempt), ...towards('answer', reply.content, attempt));
    for (const c of reply.toolCalls) {
      if (shown.calls.get(c.index) === c.arguments + c.name) continue;
      shown.calls.set(c.index, c.arguments + c.name);
      out.push(live({ type: 'tool_call.forming', attempt, index: c.index, name: c.name, arguments: c.arguments }));
    }
    return out;
  }
}

/** The `live` field of a model call's heartbeat details, decoded with the client's codecs (an encrypted run). */
async function liveReplyOf(workflow: WorkflowClient, p: Payload | undefined): Promise<LiveReply | undefined> {
  if (!p) return undefined;
  try {
    const details = await decodeStoredValue<{ live?: LiveReply }>(workflow.options.loadedDataConverter, p);
    return details?.live;
  } catch {
    return undefined; // a key this client lacks: the step events still come
  }
}
