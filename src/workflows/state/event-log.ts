// The conversation's live step events (src/shared/events.ts), kept in memory for the `events` query: never
// recorded — they are derived from what the workflow does, so a replay rebuilds the same events at the same
// offsets. A bounded window: a watcher that falls further behind is told how many it missed. Continue-as-new
// carries the next offset and the last few events, so offsets keep counting and a watcher that was a little
// behind loses nothing at the boundary.
import { workflowInfo } from '@temporalio/workflow';
import { z } from 'zod';
import type { RunStatus } from '../../shared/contract';
import type { EventsPage, StepEvent, StepEventRecord } from '../../shared/events';

/** Events kept for watchers: enough for a watcher a few seconds behind a busy conversation. */
const KEPT = 200;
/** Events the next run gets: a watcher that polled just before continue-as-new finds these there. */
const CARRIED = 20;
/** Events one query returns at most (a page: the watcher asks again from `next`). */
const PAGE = 100;

export function eventsCarry() {
  return z.object({ next: z.number().int().min(0), tail: z.array(z.custom<StepEventRecord>((v) => typeof v === 'object' && v !== null)) });
}
export type EventsCarry = z.infer<ReturnType<typeof eventsCarry>>;

export interface EventWhere {
  turn: number;
  step?: number;
}

export class EventLog {
  #kept: StepEventRecord[];
  #next: number;
  #modelInFlight: number | undefined;

  constructor(carried?: EventsCarry) {
    this.#kept = carried?.tail ?? [];
    this.#next = carried?.next ?? 0;
  }

  carry(): EventsCarry {
    return { next: this.#next, tail: this.#kept.slice(-CARRIED) };
  }

  publish(ev: StepEvent, where: EventWhere): void {
    const { workflowId, runId } = workflowInfo();
    const record = {
      conversationId: workflowId,
      runId,
      offset: this.#next++,
      at: Date.now(),
      turn: where.turn,
      ...(where.step !== undefined ? { step: where.step } : {}),
      ...ev,
    } as StepEventRecord;
    this.#kept.push(record);
    if (this.#kept.length > KEPT) this.#kept.splice(0, this.#kept.length - KEPT);
  }

  /** A model call of this step is in flight (watchers read its text from the activity's heartbeats) or none is. */
  modelCalling(step: number | undefined): void {
    this.#modelInFlight = step;
  }

  page(from: number, status: RunStatus): EventsPage {
    const first = this.#kept[0]?.offset ?? this.#next;
    const start = this.#kept.findIndex((e) => e.offset >= from);
    const events = start < 0 ? [] : this.#kept.slice(start, start + PAGE);
    return {
      events,
      next: events.length ? events[events.length - 1]!.offset + 1 : this.#next,
      first,
      ...(this.#modelInFlight !== undefined ? { modelInFlight: { step: this.#modelInFlight } } : {}),
      status,
    };
  }
}
