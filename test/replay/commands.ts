// The replay corpus's behaviour check, host side. Temporal's replay fails a history only when the workflow's
// commands differ from the recorded events in type or order (a nondeterminism error); it does not look at what
// they carry. A changed prompt text, a tool added to the defaults or calls run in another order schedule the same
// `callModel` and `runTool` activities with other inputs, and replay passes. Here each history is replayed with
// capture-commands.ts in the bundle, and every command's payloads are compared with the recorded event's:
// activity inputs and summaries, timer durations and summaries, child workflow and external signal inputs, search
// attribute and memo upserts, and the run's result, failure or continue-as-new input. Local activities are left
// out: their markers record results, not inputs. A difference names the command, the field and both values.
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { isDeepStrictEqual } from 'node:util';
import type { CapturedActivation, CaptureSinks } from './capture-commands';
import type { InjectedSinks } from '@temporalio/worker';

type History = temporal.api.history.v1.IHistory;

/** One command as compared: its kind, what it names, and the values that must match the recorded event's. */
interface Compared {
  kind: string;
  name: string;
  values: Record<string, unknown>;
}

export interface ReplayCheck {
  workflowId: string;
  runId: string;
  /** Temporal's own verdict: a nondeterminism error or another replay failure. */
  error?: string;
  /** What the replayed commands carried that the recorded events do not. */
  differences: string[];
}

/**
 * Replays the histories with `options.workflowBundle` (which must include capture-commands.ts as a workflow
 * interceptor module) and compares what every command carried with the recorded event.
 */
export async function replayChecked(
  options: Partial<ReplayWorkerOptions> & Pick<ReplayWorkerOptions, 'workflowBundle'>,
  histories: Array<{ workflowId: string; history: History }>,
): Promise<ReplayCheck[]> {
  const captured = new Map<string, unknown[]>();
  const sinks: InjectedSinks<CaptureSinks> = {
    hermesReplayCommands: {
      activation: {
        fn: (info, a: CapturedActivation) => {
          const list = captured.get(info.runId) ?? [];
          list.push(...withoutCancelledUnsent(a.commands));
          captured.set(info.runId, list);
        },
        callDuringReplay: true,
      },
    },
  };
  const byRun = new Map(histories.map((h) => [h.history.events?.[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId, h.history]));
  const out: ReplayCheck[] = [];
  for await (const r of Worker.runReplayHistories({ ...options, sinks: { ...options.sinks, ...sinks } }, histories)) {
    const history = byRun.get(r.runId);
    out.push({
      workflowId: r.workflowId,
      runId: r.runId,
      ...(r.error ? { error: `${r.error.name}: ${r.error.message}` } : {}),
      differences: history ? compare(recordedOf(history), (captured.get(r.runId) ?? []).flatMap(replayedOf)) : ['history not found'],
    });
  }
  return out;
}

/** A command cancelled in the activation that issued it never reaches the server (core drops the pair). */
function withoutCancelledUnsent(commands: unknown[]): unknown[] {
  const cmds = commands as Array<Record<string, { seq?: number } | undefined>>;
  const cancelled = new Set<string>();
  for (const c of cmds) {
    if (c.cancelTimer) cancelled.add(`timer ${c.cancelTimer.seq}`);
    if (c.requestCancelActivity) cancelled.add(`activity ${c.requestCancelActivity.seq}`);
  }
  return cmds.filter(
    (c) =>
      !(c.startTimer && cancelled.has(`timer ${c.startTimer.seq}`)) && !(c.scheduleActivity && cancelled.has(`activity ${c.scheduleActivity.seq}`)),
  );
}

/** What the recorded events carried, in history order. */
export function recordedOf(history: History): Compared[] {
  return (history.events ?? []).flatMap((e): Compared[] => {
    const summary = { summary: decodeOne(e.userMetadata?.summary) };
    if (e.activityTaskScheduledEventAttributes) {
      const a = e.activityTaskScheduledEventAttributes;
      return [{ kind: 'activity', name: a.activityType?.name ?? '', values: { input: decodeAll(a.input?.payloads), ...summary } }];
    }
    if (e.timerStartedEventAttributes) {
      return [{ kind: 'timer', name: '', values: { ms: durationMs(e.timerStartedEventAttributes.startToFireTimeout), ...summary } }];
    }
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) {
      const a = e.startChildWorkflowExecutionInitiatedEventAttributes;
      return [{ kind: 'child', name: a.workflowType?.name ?? '', values: { workflowId: a.workflowId, input: decodeAll(a.input?.payloads) } }];
    }
    if (e.signalExternalWorkflowExecutionInitiatedEventAttributes) {
      const a = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
      return [{ kind: 'signal', name: a.signalName ?? '', values: { input: decodeAll(a.input?.payloads) } }];
    }
    if (e.upsertWorkflowSearchAttributesEventAttributes) {
      const fields = searchAttributes(e.upsertWorkflowSearchAttributesEventAttributes.searchAttributes?.indexedFields);
      return Object.keys(fields).length ? [{ kind: 'search attributes', name: '', values: { fields } }] : [];
    }
    if (e.workflowPropertiesModifiedEventAttributes) {
      return [{ kind: 'memo', name: '', values: { fields: decodeMap(e.workflowPropertiesModifiedEventAttributes.upsertedMemo?.fields) } }];
    }
    if (e.workflowExecutionCompletedEventAttributes) {
      return [{ kind: 'result', name: '', values: { result: decodeOne(e.workflowExecutionCompletedEventAttributes.result?.payloads?.[0]) } }];
    }
    if (e.workflowExecutionFailedEventAttributes) {
      return [{ kind: 'failure', name: '', values: failureValues(e.workflowExecutionFailedEventAttributes.failure) }];
    }
    if (e.workflowExecutionContinuedAsNewEventAttributes) {
      return [{ kind: 'continue-as-new', name: '', values: { input: decodeAll(e.workflowExecutionContinuedAsNewEventAttributes.input?.payloads) } }];
    }
    return [];
  });
}

/** What a replayed command carried (the same shapes as recordedOf). */
function replayedOf(command: unknown): Compared[] {
  const c = command as Record<string, Record<string, unknown> | undefined> & { userMetadata?: { summary?: Payload } };
  const summary = { summary: decodeOne(c.userMetadata?.summary) };
  const p = (v: unknown) => v as Payload[] | undefined;
  if (c.scheduleActivity)
    return [
      { kind: 'activity', name: String(c.scheduleActivity.activityType), values: { input: decodeAll(p(c.scheduleActivity.arguments)), ...summary } },
    ];
  if (c.startTimer) return [{ kind: 'timer', name: '', values: { ms: durationMs(c.startTimer.startToFireTimeout), ...summary } }];
  if (c.startChildWorkflowExecution) {
    const a = c.startChildWorkflowExecution;
    return [{ kind: 'child', name: String(a.workflowType), values: { workflowId: a.workflowId, input: decodeAll(p(a.input)) } }];
  }
  if (c.signalExternalWorkflowExecution) {
    const a = c.signalExternalWorkflowExecution;
    return [{ kind: 'signal', name: String(a.signalName), values: { input: decodeAll(p(a.args)) } }];
  }
  if (c.upsertWorkflowSearchAttributes) {
    const sa = c.upsertWorkflowSearchAttributes.searchAttributes as { indexedFields?: Record<string, Payload> } | undefined;
    return [{ kind: 'search attributes', name: '', values: { fields: searchAttributes(sa?.indexedFields) } }];
  }
  if (c.modifyWorkflowProperties) {
    const memo = c.modifyWorkflowProperties.upsertedMemo as { fields?: Record<string, Payload> } | undefined;
    return [{ kind: 'memo', name: '', values: { fields: decodeMap(memo?.fields) } }];
  }
  if (c.completeWorkflowExecution)
    return [{ kind: 'result', name: '', values: { result: decodeOne(c.completeWorkflowExecution.result as Payload) } }];
  if (c.failWorkflowExecution)
    return [{ kind: 'failure', name: '', values: failureValues(c.failWorkflowExecution.failure as temporal.api.failure.v1.IFailure) }];
  if (c.continueAsNewWorkflowExecution)
    return [{ kind: 'continue-as-new', name: '', values: { input: decodeAll(p(c.continueAsNewWorkflowExecution.arguments)) } }];
  return [];
}

/**
 * Pairs the commands with the events kind by kind, in order. Commands past the last recorded event of their kind
 * are the replay's last activation, which the history (of a run still going) does not hold yet.
 */
function compare(recorded: Compared[], replayed: Compared[]): string[] {
  const differences: string[] = [];
  const kinds = new Set(recorded.map((r) => r.kind));
  for (const kind of kinds) {
    const rec = recorded.filter((r) => r.kind === kind);
    const rep = replayed.filter((r) => r.kind === kind);
    rec.forEach((r, i) => {
      const got = rep[i];
      const label = `${kind} #${i + 1}${r.name ? ` (${r.name})` : ''}`;
      if (!got) return void differences.push(`${label}: recorded, not issued by the replay`);
      if (got.name !== r.name) return void differences.push(`${label}: the replay issued ${got.name} instead`);
      for (const key of Object.keys(r.values)) {
        const at = firstDifference(r.values[key], got.values[key]);
        if (at) differences.push(`${label}: ${key}${at.path} was ${show(at.recorded)}, the replay has ${show(at.replayed)}`);
      }
    });
  }
  return differences;
}

function firstDifference(a: unknown, b: unknown, path = ''): { path: string; recorded: unknown; replayed: unknown } | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
      const d = firstDifference(ao[k], bo[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`);
      if (d) return d;
    }
  }
  return { path, recorded: a, replayed: b };
}

function show(v: unknown): string {
  const s = v === undefined ? 'absent' : JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/** Values as the workflow saw them: JSON-plain, so both sides compare alike. */
function decodeOne(p: Payload | null | undefined): unknown {
  if (!p) return undefined;
  let v: unknown;
  try {
    v = defaultPayloadConverter.fromPayload(p);
  } catch {
    return { undecodable: Buffer.from(p.data ?? []).toString('base64') };
  }
  return v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as unknown);
}

function decodeAll(ps: Payload[] | null | undefined): unknown[] {
  // Array.from, not ps.map: a command's arrays come from the workflow's realm, and map would build another of those.
  return Array.from(ps ?? [], decodeOne);
}

function decodeMap(m: Record<string, Payload> | null | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, decodeOne(v)]));
}

/** Search attributes the workflow set: core adds TemporalChangeVersion for patch markers, in upserts of its own. */
function searchAttributes(m: Record<string, Payload> | null | undefined): Record<string, unknown> {
  const { TemporalChangeVersion: _core, ...fields } = decodeMap(m);
  return fields;
}

function failureValues(f: temporal.api.failure.v1.IFailure | null | undefined): Record<string, unknown> {
  return {
    message: f?.message,
    type: f?.applicationFailureInfo?.type,
    nonRetryable: Boolean(f?.applicationFailureInfo?.nonRetryable),
    details: decodeAll(f?.applicationFailureInfo?.details?.payloads as Payload[] | undefined),
  };
}

/** A protobuf Duration (seconds as a number, a string or a Long) in milliseconds. */
function durationMs(d: unknown): number | undefined {
  if (!d || typeof d !== 'object') return undefined;
  const { seconds, nanos } = d as { seconds?: unknown; nanos?: number | null };
  let s = 0;
  if (typeof seconds === 'number') s = seconds;
  else if (typeof seconds === 'string') s = Number(seconds);
  else if (seconds && typeof seconds === 'object') {
    const l = seconds as { low?: number; high?: number };
    s = (l.high ?? 0) * 2 ** 32 + ((l.low ?? 0) >>> 0);
  }
  return s * 1000 + Math.round((nanos ?? 0) / 1e6);
}
