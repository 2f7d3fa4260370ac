// What a conversation is doing right now, in the server's words: its pending model and tool activities
// (DescribeWorkflowExecution → pendingActivities) as plain objects, and the short lines the CLI shows for them
// while a call takes long (`hermes run`, `hermes chat`, `hermes status`). Nothing here is recorded anywhere.
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

type Pending = temporal.api.workflow.v1.IPendingActivityInfo;
type Failure = temporal.api.failure.v1.IFailure;

export interface InFlightCall {
  kind: 'model' | 'tool';
  /** The activity's id in its run: the same for every attempt of one call. */
  activityId: string;
  /** Model calls: the model-step number (`inspect --step`), when the history could be read. */
  modelStep?: number;
  /** Tool calls: the tool's name, when the history could be read (an encrypted one needs the payload key). */
  tool?: string;
  /** 1 for the first try. */
  attempt: number;
  /** The retry policy's bound on attempts; 0 for none. */
  maxAttempts: number;
  /**
   * `running`: an attempt is under way on a worker; `waiting`: the next attempt waits for its retry time or for a
   * worker to take it; `cancelling`: cancellation was asked for and the worker has not confirmed it yet.
   */
  state: 'running' | 'waiting' | 'cancelling';
  /** Seconds since the current attempt started (running), or since it was scheduled (waiting). */
  runningSec: number;
  /** Seconds since the worker last heartbeated this attempt (it is alive), when it has. */
  heartbeatAgoSec?: number;
  /** How the previous attempt failed (already redacted by the worker that reported it). */
  lastFailure?: { type: string; message: string };
  /** Seconds until the next attempt starts, while waiting for a retry. */
  nextTryInSec?: number;
}

const { PENDING_ACTIVITY_STATE_STARTED: STARTED, PENDING_ACTIVITY_STATE_CANCEL_REQUESTED: CANCEL_REQUESTED } =
  temporal.api.enums.v1.PendingActivityState;

const ACTIVITY_KIND: Record<string, InFlightCall['kind']> = { callModel: 'model', runTool: 'tool' };

/** The model and tool calls among a workflow's pending activities (names are filled in later from the history). */
export function inFlightCalls(pending: Pending[] | null | undefined, now = Date.now()): InFlightCall[] {
  const out: InFlightCall[] = [];
  for (const p of pending ?? []) {
    const kind = ACTIVITY_KIND[p.activityType?.name ?? ''];
    if (!kind) continue;
    const state = p.state === STARTED ? 'running' : p.state === CANCEL_REQUESTED ? 'cancelling' : 'waiting';
    const started = ms(p.lastStartedTime);
    const since = state !== 'waiting' && started ? started : (ms(p.scheduledTime) ?? started ?? now);
    const beat = ms(p.lastHeartbeatTime);
    const next = ms(p.nextAttemptScheduleTime);
    out.push({
      kind,
      activityId: p.activityId ?? '',
      attempt: p.attempt || 1,
      maxAttempts: p.maximumAttempts ?? 0,
      state,
      runningSec: secs(now - since),
      ...(beat && state !== 'waiting' && beat >= (started ?? 0) ? { heartbeatAgoSec: secs(now - beat) } : {}),
      ...(p.lastFailure ? { lastFailure: failureOf(p.lastFailure) } : {}),
      ...(state === 'waiting' && next ? { nextTryInSec: Math.max(0, Math.ceil((next - now) / 1000)) } : {}),
    });
  }
  return out;
}

/** The failure's type (an ApplicationFailure's, or the timeout's kind) and its message on one short line. */
export function failureOf(f: Failure): { type: string; message: string } {
  const timeout = f.timeoutFailureInfo ? TIMEOUT_NAMES[f.timeoutFailureInfo.timeoutType ?? 0] : undefined;
  const type = f.applicationFailureInfo?.type || timeout || (f.canceledFailureInfo ? 'Cancelled' : f.serverFailureInfo ? 'ServerFailure' : 'Failure');
  return { type, message: oneLine(f.message ?? '', 100) };
}

// TimeoutType: 1 START_TO_CLOSE, 2 SCHEDULE_TO_START, 3 SCHEDULE_TO_CLOSE, 4 HEARTBEAT.
const TIMEOUT_NAMES: Record<number, string> = {
  1: 'StartToCloseTimeout',
  2: 'ScheduleToStartTimeout',
  3: 'ScheduleToCloseTimeout',
  4: 'HeartbeatTimeout',
};

/** `model step 3`, `tool terminal` (or `model call` / `tool call` when the history could not tell). */
export function callLabel(c: InFlightCall): string {
  if (c.kind === 'model') return c.modelStep !== undefined ? `model step ${c.modelStep}` : 'model call';
  return c.tool ? `tool ${c.tool}` : 'tool call';
}

/** `… model step 3: running 12 s (attempt 2 of 6)`, or `… model step 3: waiting for attempt 2 of 6, in 4 s`. */
export function inFlightLine(c: InFlightCall): string {
  const of = c.maxAttempts ? ` of ${c.maxAttempts}` : '';
  const what =
    c.state === 'waiting'
      ? `waiting for attempt ${c.attempt}${of}${c.nextTryInSec ? `, in ${c.nextTryInSec} s` : ` for ${c.runningSec} s (no worker has taken it yet)`}`
      : `${c.state === 'cancelling' ? 'cancelling, ' : ''}running ${c.runningSec} s${c.attempt > 1 ? ` (attempt ${c.attempt}${of})` : ''}`;
  return `  … ${callLabel(c)}: ${what}`;
}

/**
 * `  model step 3: attempt 1 failed — ModelUnavailable: 503 …; retrying in 2 s` (or `; attempt 2 running` when
 * the retry has started already). Undefined for a first attempt.
 */
export function retryLine(c: InFlightCall): string | undefined {
  if (c.attempt < 2 || !c.lastFailure) return undefined;
  const next =
    c.state === 'waiting' ? (c.nextTryInSec !== undefined ? `retrying in ${c.nextTryInSec} s` : 'retrying') : `attempt ${c.attempt} running`;
  return `  ${callLabel(c)}: attempt ${c.attempt - 1} failed — ${c.lastFailure.type}: ${c.lastFailure.message}; ${next}`;
}

/** `in flight: model step 3: running 12 s (attempt 2 of 6); attempt 1 failed — ModelUnavailable: …` (hermes status). */
export function inFlightSummary(c: InFlightCall): string {
  const failed = c.attempt > 1 && c.lastFailure ? `; attempt ${c.attempt - 1} failed — ${c.lastFailure.type}: ${c.lastFailure.message}` : '';
  return `in flight: ${inFlightLine(c).replace(/^\s*… /, '')}${failed}`;
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Milliseconds since the epoch; undefined for an absent (or zero) timestamp. */
function ms(ts: Parameters<typeof optionalTsToMs>[0]): number | undefined {
  const v = optionalTsToMs(ts);
  return v ? v : undefined;
}

function secs(msec: number): number {
  return Math.max(0, Math.floor(msec / 1000));
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payload = temporal.api.common.v1.IPayload;

/**
 * The model-step number (model calls counted over all runs, as `inspect --step` counts them) or the tool name
 * of each of `activityIds` in the current run, the last of `runs`. Undefined when that run is not `runId` (a
 * continue-as-new came in between: activity ids restart in each run). `decode` turns a tool call's input
 * payload into its value (through the payload codecs); a tool whose input cannot be read stays unnamed.
 */
export async function callNames(
  runs: HistoryEvent[][],
  runId: string,
  activityIds: string[],
  decode: (p: Payload) => Promise<unknown>,
): Promise<Map<string, { modelStep?: number; tool?: string }> | undefined> {
  const current = runs.at(-1);
  if (current?.[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId !== runId) return undefined;
  let modelStep = 0;
  for (const events of runs.slice(0, -1)) {
    modelStep += events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').length;
  }
  const wanted = new Set(activityIds);
  const out = new Map<string, { modelStep?: number; tool?: string }>();
  for (const e of current) {
    const s = e.activityTaskScheduledEventAttributes;
    if (!s) continue;
    const model = s.activityType?.name === 'callModel';
    if (model) modelStep++;
    if (!s.activityId || !wanted.has(s.activityId)) continue;
    if (model) out.set(s.activityId, { modelStep });
    else {
      const payload = s.input?.payloads?.[0];
      const input = payload ? await decode(payload).catch(() => undefined) : undefined;
      const name = (input as { name?: unknown } | undefined)?.name;
      out.set(s.activityId, typeof name === 'string' ? { tool: name } : {});
    }
  }
  return out;
}
