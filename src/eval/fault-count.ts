// How many injected faults (src/activities/faults.ts) a conversation met, read from its histories, so it is
// counted wherever the worker ran. A model call that succeeded on a retry carries its earlier attempts' failures
// in its result (exact, up to five); otherwise an activity's last failure is in its failed event and the one
// before the last attempt in its started event; attempts before those are taken to have failed the same way.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { INJECTED_PREFIX } from '../activities/faults';
import { fetchRuns } from '../inspect/step-context';
import type { ModelCallResult } from '../shared/wire';

type HistoryEvent = Awaited<ReturnType<typeof fetchRuns>>[number][number];

export interface FaultCount {
  total: number;
  /** By failure type: ModelUnavailable (500), RateLimited (429), ModelTimeout, InjectedFault (tools). */
  byType: Record<string, number>;
}

interface FailureLike {
  message?: string | null;
  applicationFailureInfo?: { type?: string | null } | null;
}

const injected = (f: FailureLike | null | undefined): f is FailureLike => Boolean(f?.message?.startsWith(INJECTED_PREFIX));
const typeOf = (f: FailureLike) => f.applicationFailureInfo?.type ?? 'Error';

function decode(p: Payload | undefined): unknown {
  if (!p) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(p);
  } catch {
    return undefined;
  }
}

export function countInjectedFaults(runs: HistoryEvent[][]): FaultCount {
  const byType: Record<string, number> = {};
  const add = (type: string, n = 1) => {
    if (n > 0) byType[type] = (byType[type] ?? 0) + n;
  };
  for (const events of runs) {
    const kind = new Map<string, string>();
    const started = new Map<string, { attempt: number; lastFailure?: FailureLike | null }>();
    for (const e of events) {
      const s = e.activityTaskScheduledEventAttributes;
      if (s) {
        kind.set(String(e.eventId), s.activityType?.name ?? '');
        continue;
      }
      const st = e.activityTaskStartedEventAttributes;
      if (st) {
        started.set(String(st.scheduledEventId), { attempt: st.attempt ?? 1, lastFailure: st.lastFailure as FailureLike | null | undefined });
        continue;
      }
      const done = e.activityTaskCompletedEventAttributes;
      const failed = e.activityTaskFailedEventAttributes;
      const key = String((done ?? failed)?.scheduledEventId ?? '');
      const name = kind.get(key);
      if (name !== 'callModel' && name !== 'runTool') continue;
      const start = started.get(key) ?? { attempt: 1 };
      if (done && name === 'callModel') {
        const result = decode(done.result?.payloads?.[0] as Payload | undefined) as Partial<ModelCallResult> | undefined;
        for (const f of result?.failures ?? []) if (f.message.startsWith(INJECTED_PREFIX)) add(f.type);
        continue;
      }
      // Earlier attempts: the one before the last is in the started event.
      if (injected(start.lastFailure)) add(typeOf(start.lastFailure), start.attempt - 1);
      if (failed && injected(failed.failure as FailureLike)) add(typeOf(failed.failure as FailureLike));
    }
  }
  return { total: Object.values(byType).reduce((a, b) => a + b, 0), byType };
}

/** The injected faults of one conversation (all its runs). */
export async function faultsOf(client: Client, workflowId: string): Promise<FaultCount> {
  return countInjectedFaults(await fetchRuns(client, workflowId));
}
