// Scheduled tasks are Temporal Schedules: `task_register` (the model), `hermes.schedules` (code) and `hermes
// schedule` (CLI) all come here. A task's schedule id is `hermes-task-<name>`; every firing starts an ordinary
// `conversationWorkflow` whose input carries the complete run config, so it needs neither the client nor the
// conversation that registered it. The definition travels in the schedule's memo, so `list` and `describe`
// need nothing but the cluster.
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  ServiceError,
  type Client,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleOptions,
  type ScheduleSummary,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { conversationInputSchema, conversationResultSchema, issuesText, type ConversationInput, type RunStatus } from '../shared/contract';
import { HermesSchedule } from '../shared/search-attributes';
import { searchAttributeCommand, unregisteredAttribute } from '../startup/register-attributes';
import { resultOfFailure } from '../shared/failed-result';
import { isTaskName, TASK_LIMITS } from './limits';
import { webhookProblem } from './webhook-policy';
import { formatFireTime, parseWhen, type When } from './when';

export { TASK_LIMITS } from './limits';
export const SCHEDULE_ID_PREFIX = 'hermes-task-';
const OVERLAP = { skip: 'SKIP', buffer_one: 'BUFFER_ONE', allow_all: 'ALLOW_ALL', cancel_other: 'CANCEL_OTHER' } as const;
export type OverlapPolicy = keyof typeof OVERLAP;

/** What a task is: when, what to ask, and the run config every firing gets. */
export interface TaskDefinition {
  name: string;
  /** Cron, macro, `every 30m`, `in 45m` or an ISO time (src/schedules/when.ts). */
  when: string;
  /** IANA zone the cron is read in (default UTC). */
  timezone?: string;
  prompt: string;
  description?: string;
  /** Run config of every firing: model, tools, workspace, limits, approval policy… (prompt and mode are set here). */
  config?: Omit<ConversationInput, 'prompt' | 'mode' | 'scheduled' | 'schedule'>;
  /** POST each result here (a URL, or `$NAME` for a URL in the worker's environment). */
  webhook?: string;
  /** Firings may register tasks of their own (off by default: a schedule must not multiply itself). */
  allowSchedules?: boolean;
  /** What happens when a firing is due while the previous one still runs (default skip). */
  overlap?: OverlapPolicy;
  /** How late a missed firing (server down) may still start (default 10 minutes). */
  catchupWindowSec?: number;
  /**
   * Pause the schedule when a firing fails (Temporal's pauseOnFailure): a failed conversation is a FAILED
   * workflow, so a task whose model key was revoked stops instead of failing every hour. Off by default.
   */
  pauseOnFailure?: boolean;
}

/** Who registered a task: a conversation's tool call (the retry of that call finds its own schedule). */
export interface RegisteredBy {
  workflowId?: string;
  callId?: string;
  via: 'tool' | 'client' | 'cli';
}

interface TaskMemo extends Omit<TaskDefinition, 'config'> {
  timezone: string;
  registeredBy: RegisteredBy;
  registeredAt: string;
  /** Unique per registration: tells a registration its own schedule from one a concurrent replace made. */
  registrationId?: string;
}

/** Rounds of delete + create a replace tries while others replace the same task at the same time. */
const REPLACE_ATTEMPTS = 5;

export interface TaskInfo {
  name: string;
  scheduleId: string;
  when: string;
  timezone: string;
  prompt: string;
  description?: string;
  webhook?: string;
  paused: boolean;
  note?: string;
  /** One-shots: 0 once fired. */
  remainingActions?: number;
  nextRuns: Date[];
  recentRuns: Array<{ workflowId: string; scheduledAt: Date; startedAt: Date }>;
  registeredBy?: RegisteredBy;
}

export interface TaskRun {
  workflowId: string;
  startedAt?: Date;
  closedAt?: Date;
  /** Temporal's execution status (RUNNING, COMPLETED, FAILED, TERMINATED…). */
  execution: string;
  /** The conversation's own status and failure reason, once it has ended. */
  status?: RunStatus;
  reason?: string;
  answer?: string;
}

export class TaskError extends Error {
  override name = 'TaskError';
}

export const scheduleIdOf = (name: string) => `${SCHEDULE_ID_PREFIX}${name}`;

/**
 * Checks a definition without touching the cluster: the name, the sizes (task_register's limits, for every way
 * in), when it fires, the webhook (its form, and an address this process's webhook policy refuses), and the
 * firing's input.
 */
export function checkTask(def: TaskDefinition, now = new Date()): { when: When; input: ConversationInput } {
  if (!isTaskName(def.name)) {
    throw new TaskError(
      `task name "${def.name}": use 1-63 lowercase letters, digits, - or _, starting with a letter or digit (e.g. "daily-ci-report")`,
    );
  }
  const tooLong = (what: string, value: string | undefined, max: number) => {
    if (value !== undefined && value.length > max) {
      throw new TaskError(
        `the ${what} of task "${def.name}" is ${value.length.toLocaleString('en-US')} characters: at most ${max.toLocaleString('en-US')}`,
      );
    }
  };
  tooLong('prompt', def.prompt, TASK_LIMITS.promptChars);
  tooLong('description', def.description, TASK_LIMITS.descriptionChars);
  tooLong('when', def.when, TASK_LIMITS.whenChars);
  tooLong('timezone', def.timezone, TASK_LIMITS.timezoneChars);
  tooLong('webhook', def.webhook, TASK_LIMITS.webhookChars);
  if ((def.config?.tools?.length ?? 0) > TASK_LIMITS.tools) {
    throw new TaskError(`task "${def.name}" names ${def.config!.tools!.length} tools or toolsets: at most ${TASK_LIMITS.tools}`);
  }
  if (!def.prompt.trim()) throw new TaskError(`task "${def.name}" needs a prompt: what each firing is asked`);
  const webhook = def.webhook ? webhookProblem(def.webhook) : undefined;
  if (webhook) throw new TaskError(webhook);
  // The name seeds a cron's `H` fields: every parse of this task picks the same values.
  const when = parseWhen(def.when, def.timezone ?? 'UTC', now, def.name);
  const input = {
    ...def.config,
    prompt: def.prompt,
    scheduled: true,
    schedule: { name: def.name, ...(def.webhook ? { webhook: def.webhook } : {}), ...(def.allowSchedules ? { allowSchedules: true } : {}) },
  };
  const parsed = conversationInputSchema().safeParse(input);
  if (!parsed.success) throw new TaskError(`the run config of task "${def.name}" is not valid: ${issuesText(parsed.error)}`);
  return { when, input: parsed.data };
}

/**
 * Creates the task's schedule. Idempotent for its registrant: a retried `task_register` (same conversation and
 * call) that finds the schedule it created returns it instead of failing with "already exists". Another
 * registrant gets an error unless `replace` is set (then the old schedule is deleted and created anew).
 *
 * Concurrent registrations of one name: the memo cannot be updated in place, so a replace is delete + create,
 * and between the two another registration may delete or create. Each step takes the others' into account
 * (a schedule gone meanwhile is fine to delete, a name taken meanwhile is replaced again), so the last create
 * wins; a registration that finds its own schedule replaced by another right after it made it says so.
 */
export async function registerTask(
  client: Client,
  taskQueue: string,
  def: TaskDefinition,
  opts: { registeredBy: RegisteredBy; replace?: boolean; now?: Date },
): Promise<TaskInfo> {
  const { when, input } = checkTask(def, opts.now);
  const scheduleId = scheduleIdOf(def.name);
  const handle = client.schedule.getHandle(scheduleId);
  const registrationId = randomUUID();
  const memo: TaskMemo = {
    name: def.name,
    when: def.when,
    timezone: when.timezone,
    prompt: def.prompt,
    ...(def.description ? { description: def.description } : {}),
    ...(def.webhook ? { webhook: def.webhook } : {}),
    registeredBy: opts.registeredBy,
    registeredAt: (opts.now ?? new Date()).toISOString(),
    registrationId,
  };
  const options: ScheduleOptions = {
    scheduleId,
    spec: when.spec,
    action: {
      type: 'startWorkflow',
      workflowType: 'conversationWorkflow',
      // Firings get `<this id>-<fire time>`: unique per firing, and the schedule in the name.
      workflowId: scheduleId,
      taskQueue,
      args: [input],
      memo: { hermesSchedule: def.name },
      typedSearchAttributes: [{ key: HermesSchedule, value: def.name }],
      staticSummary: `hermes task ${def.name}: ${def.prompt.slice(0, 100)}`,
    },
    policies: {
      overlap: ScheduleOverlapPolicy[OVERLAP[def.overlap ?? 'skip']],
      catchupWindow: (def.catchupWindowSec ?? 600) * 1000,
      pauseOnFailure: def.pauseOnFailure ?? false,
    },
    state: {
      note: `registered by ${describeRegistrant(opts.registeredBy)}`,
      ...(when.kind === 'once' ? { remainingActions: 1 } : {}),
    },
    memo: { hermes: memo },
    typedSearchAttributes: [{ key: HermesSchedule, value: def.name }],
  };
  let marked = true;
  for (let attempt = 1; ; attempt++) {
    try {
      await client.schedule.create(marked ? options : unmarked(options));
      break;
    } catch (err) {
      if (marked && unregisteredAttribute(err, HermesSchedule.name)) {
        marked = false;
        attempt--;
        process.stderr.write(
          `hermes: namespace ${client.options.namespace} has no search attribute ${HermesSchedule.name}; task ${def.name} is ` +
            `registered without it (its firings are found by TemporalScheduledById; add it: ` +
            `${searchAttributeCommand(client.options.namespace, HermesSchedule.name)})\n`,
        );
        continue;
      }
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    // Deleted since (a replace between its delete and its create): the name may be free now; try again.
    const existing = await described(handle);
    if (!existing) {
      if (attempt >= REPLACE_ATTEMPTS) throw beingReplaced(def.name);
      continue;
    }
    const info = taskInfo(def.name, existing);
    if (sameRegistration(info.registeredBy, opts.registeredBy)) return info;
    if (!opts.replace) {
      throw new TaskError(
        `a task named "${def.name}" already exists (${info.when}, registered by ${describeRegistrant(info.registeredBy)}): ` +
          'pick another name, or replace it',
      );
    }
    if (attempt >= REPLACE_ATTEMPTS) throw beingReplaced(def.name);
    // The memo cannot be updated in place: replacing is delete + create. Gone already (another replace
    // deleted it, or it is being deleted: "workflow execution already completed") is as good.
    await handle.delete().catch((err: unknown) => {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    });
  }
  const mine = await described(handle);
  const memoNow = (mine?.memo?.hermes ?? {}) as Partial<TaskMemo>;
  if (!mine || memoNow.registrationId !== registrationId) {
    throw new TaskError(
      `task "${def.name}" was registered, and replaced right away by another registration of the same name ` +
        `(${mine ? `now ${memoNow.when ?? '?'}, registered by ${describeRegistrant(memoNow.registeredBy)}` : 'which is still being made'}): ` +
        'someone else is replacing it at the same time; see hermes schedule show or task_list',
    );
  }
  return taskInfo(def.name, mine);
}

/**
 * Without HermesSchedule, for a namespace that lacks it (a managed one whose workers may not register it): the
 * firings still carry TemporalScheduledById, which the server sets on every workflow a schedule starts.
 */
function unmarked(options: ScheduleOptions): ScheduleOptions {
  const { typedSearchAttributes: _schedule, ...rest } = options;
  const { typedSearchAttributes: _action, ...action } = options.action;
  return { ...rest, action };
}

/**
 * The schedule, or undefined when there is none (deleted, or being deleted). Describing asks the schedule's own
 * workflow, which can fail for a moment while another registration creates or deletes it: tried again.
 */
async function described(handle: ScheduleHandle): Promise<ScheduleDescription | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.describe();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return undefined;
      if (!(err instanceof ServiceError) || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

function beingReplaced(name: string): TaskError {
  return new TaskError(`task "${name}" was not registered: someone else is replacing it at the same time (the name kept changing hands); try again`);
}

function sameRegistration(a: RegisteredBy | undefined, b: RegisteredBy): boolean {
  return Boolean(a && b.workflowId && a.workflowId === b.workflowId && a.callId === b.callId);
}

function describeRegistrant(r: RegisteredBy | undefined): string {
  if (!r) return 'someone else';
  return r.workflowId ? `conversation ${r.workflowId}${r.callId ? ` (call ${r.callId})` : ''}` : `the ${r.via}`;
}

export async function describeTask(client: Client, name: string): Promise<TaskInfo> {
  return taskInfo(name, await withTask(name, () => client.schedule.getHandle(scheduleIdOf(name)).describe()));
}

/** Every Hermes task in the namespace, by name. */
export async function listTasks(client: Client): Promise<TaskInfo[]> {
  const out: TaskInfo[] = [];
  for await (const s of client.schedule.list()) {
    if (s.scheduleId.startsWith(SCHEDULE_ID_PREFIX)) out.push(taskInfo(s.scheduleId.slice(SCHEDULE_ID_PREFIX.length), s));
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export async function pauseTask(client: Client, name: string, note = 'paused'): Promise<void> {
  await withTask(name, () => client.schedule.getHandle(scheduleIdOf(name)).pause(note));
}

export async function resumeTask(client: Client, name: string, note = 'resumed'): Promise<void> {
  await withTask(name, () => client.schedule.getHandle(scheduleIdOf(name)).unpause(note));
}

/**
 * Fires the task now (overlap policy allow-all, so it runs even while another firing does). Temporal does not
 * track allow-all firings: one of these does not make a scheduled firing or a stock `temporal schedule trigger`
 * (whose --overlap-policy defaults to Skip) skip while it runs.
 */
export async function triggerTask(client: Client, name: string): Promise<void> {
  await withTask(name, () => client.schedule.getHandle(scheduleIdOf(name)).trigger(ScheduleOverlapPolicy.ALLOW_ALL));
}

export async function deleteTask(client: Client, name: string): Promise<void> {
  await withTask(name, () => client.schedule.getHandle(scheduleIdOf(name)).delete());
}

/**
 * The firings of a task: by HermesSchedule (which continue-as-new runs keep) or by the schedule's id in
 * TemporalScheduledById (set by the server on what a schedule starts): a task registered while the namespace lacked
 * HermesSchedule is found after an admin added it too. Without HermesSchedule, by the schedule's id alone.
 */
async function* firings(client: Client, name: string): AsyncGenerator<WorkflowExecutionInfo> {
  const clean = name.replace(/"/g, '');
  const byId = `TemporalScheduledById = "${scheduleIdOf(clean)}"`;
  try {
    yield* client.workflow.list({ query: `${HermesSchedule.name} = "${clean}" OR ${byId}` });
  } catch (err) {
    if (!unregisteredAttribute(err, HermesSchedule.name)) throw err;
    yield* client.workflow.list({ query: byId });
  }
}

/** The task's firings, newest first: Temporal's status, and the conversation's status, reason and answer. */
export async function taskRuns(client: Client, name: string, limit = 10): Promise<TaskRun[]> {
  const runs: TaskRun[] = [];
  for await (const w of firings(client, name)) {
    runs.push({
      workflowId: w.workflowId,
      ...(w.startTime ? { startedAt: w.startTime } : {}),
      ...(w.closeTime ? { closedAt: w.closeTime } : {}),
      execution: w.status.name,
    });
    if (runs.length >= limit * 4) break;
  }
  // Each continue-as-new run is a row of its own in visibility: keep the newest run of each firing.
  runs.sort((a, b) => (b.startedAt?.getTime() ?? 0) - (a.startedAt?.getTime() ?? 0));
  const newest = runs.filter((r, i) => runs.findIndex((x) => x.workflowId === r.workflowId) === i).slice(0, limit);
  await Promise.all(
    newest
      .filter((r) => r.execution === 'COMPLETED' || r.execution === 'FAILED')
      .map(async (r) => {
        // A failed conversation is a FAILED workflow carrying its result in the failure (src/shared/failed-result.ts).
        const result = conversationResultSchema().safeParse(
          await client.workflow
            .getHandle(r.workflowId)
            .result()
            .catch((err: unknown) => resultOfFailure(err)),
        );
        if (!result.success) return;
        r.status = result.data.status;
        r.answer = result.data.answer;
        if (result.data.reason) r.reason = result.data.reason;
      }),
  );
  return newest;
}

async function withTask<T>(name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw new TaskError(`no task named "${name}" (list them with task_list or hermes schedule list)`);
    throw err;
  }
}

function taskInfo(name: string, s: ScheduleDescription | ScheduleSummary): TaskInfo {
  const memo = (s.memo?.hermes ?? {}) as Partial<TaskMemo>;
  const described = 'state' in s && 'remainingActions' in s.state ? s.state.remainingActions : undefined;
  return {
    name,
    scheduleId: s.scheduleId,
    when: memo.when ?? '(not registered by hermes)',
    timezone: memo.timezone ?? 'UTC',
    prompt: memo.prompt ?? '',
    ...(memo.description ? { description: memo.description } : {}),
    ...(memo.webhook ? { webhook: memo.webhook } : {}),
    paused: s.state.paused,
    ...(s.state.note ? { note: s.state.note } : {}),
    ...(described !== undefined ? { remainingActions: described } : {}),
    nextRuns: s.info.nextActionTimes,
    recentRuns: s.info.recentActions.map((a) => ({ workflowId: a.action.workflow.workflowId, scheduledAt: a.scheduledAt, startedAt: a.takenAt })),
    ...(memo.registeredBy ? { registeredBy: memo.registeredBy } : {}),
  };
}

/** The next fire times as the tool and the CLI show them. */
export function formatNextRuns(times: Date[], timezone: string): string {
  return times.length ? times.map((t) => formatFireTime(t, timezone)).join('; ') : 'none (paused, or a one-shot that has fired)';
}
