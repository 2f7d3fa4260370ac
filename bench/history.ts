// Reading numbers out of a fetched workflow history: per-event sizes (protobuf, as the server stores them),
// per-iteration bytes, and per-activity timings from event timestamps.
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type Event = temporal.api.history.v1.IHistoryEvent;
const ET = temporal.api.enums.v1.EventType;

export function historyBytes(h: History): number {
  return temporal.api.history.v1.History.encode(h).finish().length;
}

/** Size of one event inside the encoded History: the event plus its field tag and length prefix. */
export function eventBytes(e: Event): number {
  const n = temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
  return n + 1 + varintLength(n);
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

export function eventMs(e: Event): number {
  const t = e.eventTime;
  if (!t) return 0;
  return Number(t.seconds?.toString() ?? 0) * 1000 + (t.nanos ?? 0) / 1e6;
}

export interface ActivityTiming {
  type: string;
  scheduledAt: number;
  startedAt: number;
  completedAt: number;
  /** Completed → the next activity scheduled (the workflow task round trip in between). */
  gapAfter?: number;
}

export function activityTimings(h: History): ActivityTiming[] {
  const events = h.events ?? [];
  const byScheduled = new Map<number, ActivityTiming>();
  const order: ActivityTiming[] = [];
  for (const e of events) {
    const id = Number(e.eventId?.toString() ?? 0);
    if (e.eventType === ET.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      const t = {
        type: e.activityTaskScheduledEventAttributes?.activityType?.name ?? '?',
        scheduledAt: eventMs(e),
        startedAt: NaN,
        completedAt: NaN,
      };
      byScheduled.set(id, t);
      order.push(t);
    } else if (e.eventType === ET.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const t = byScheduled.get(Number(e.activityTaskStartedEventAttributes?.scheduledEventId?.toString() ?? 0));
      if (t) t.startedAt = eventMs(e);
    } else if (e.eventType === ET.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
      const t = byScheduled.get(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId?.toString() ?? 0));
      if (t) t.completedAt = eventMs(e);
    }
  }
  for (let i = 0; i + 1 < order.length; i++) order[i]!.gapAfter = order[i + 1]!.scheduledAt - order[i]!.completedAt;
  return order;
}

/** Times of the ActivityTaskScheduled events of one activity type (one per loop iteration for the model). */
export function scheduledTimes(h: History, type?: string): number[] {
  return activityTimings(h)
    .filter((t) => !type || t.type === type)
    .map((t) => t.scheduledAt);
}

/**
 * Bytes each loop iteration added to the history. Iteration k = the events from the k-th model activity
 * scheduled up to (not including) the (k+1)-th; the events before the first model call are left out, the
 * events after the last model call (the answer, the workflow's completion) form the last entry.
 */
export function bytesPerIteration(h: History, modelActivity: string): number[] {
  const events = h.events ?? [];
  const out: number[] = [];
  let current = -1;
  for (const e of events) {
    if (e.eventType === ET.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && e.activityTaskScheduledEventAttributes?.activityType?.name === modelActivity) {
      out.push(0);
      current = out.length - 1;
    }
    if (current >= 0) out[current]! += eventBytes(e);
  }
  return out;
}

export function median(xs: number[]): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The q-quantile (0..1) of ascending `sorted`, nearest rank. */
export function percentile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : NaN;
}

export function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

export function diffs(xs: number[], step = 1): number[] {
  const out: number[] = [];
  for (let i = 0; i + step < xs.length; i += step) out.push(xs[i + step]! - xs[i]!);
  return out;
}

export interface WorkflowTaskTiming {
  scheduledAt: number;
  startedAt: number;
  completedAt: number;
}

export function workflowTaskTimings(h: History): WorkflowTaskTiming[] {
  const out: WorkflowTaskTiming[] = [];
  let cur: WorkflowTaskTiming | undefined;
  for (const e of h.events ?? []) {
    if (e.eventType === ET.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) {
      cur = { scheduledAt: eventMs(e), startedAt: NaN, completedAt: NaN };
      out.push(cur);
    } else if (e.eventType === ET.EVENT_TYPE_WORKFLOW_TASK_STARTED && cur) {
      cur.startedAt = eventMs(e);
    } else if (e.eventType === ET.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && cur) {
      cur.completedAt = eventMs(e);
    }
  }
  return out;
}
