// `hermes.schedules`: scheduled tasks from code (the CLI's `hermes schedule` uses it too). A thin layer over
// src/schedules/tasks.ts that adds what code and the CLI need: a relative workspace taken from the current
// directory, unknown tool names rejected before anything reaches the server, and `update`, which reads the
// whole definition back from the schedule and registers it again with the changes.
import { ScheduleNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';
import path from 'node:path';
import type { ConversationInput } from '../shared/contract';
import { DEFAULT_LIMITS } from '../shared/defaults';
import { resolveTools } from '../tools/registry';
import {
  checkTask,
  deleteTask,
  describeTask,
  listTasks,
  pauseTask,
  registerTask,
  resumeTask,
  scheduleIdOf,
  TaskError,
  taskRuns,
  triggerTask,
  type OverlapPolicy,
  type RegisteredBy,
  type TaskDefinition,
  type TaskInfo,
  type TaskRun,
} from './tasks';

export type { TaskDefinition, TaskInfo, TaskRun } from './tasks';
export { TaskError } from './tasks';

/** What `update` changes: any field but the name; `config` and its `limits` are merged key by key. */
export type TaskChanges = Partial<Omit<TaskDefinition, 'name'>>;

type TaskConfig = NonNullable<TaskDefinition['config']>;

const OVERLAP_OF: Record<string, OverlapPolicy> = { SKIP: 'skip', BUFFER_ONE: 'buffer_one', ALLOW_ALL: 'allow_all', CANCEL_OTHER: 'cancel_other' };

export class HermesSchedules {
  constructor(
    private readonly client: Client,
    /** The task queue firings start on (the workers that run them poll it). */
    readonly taskQueue: string,
    private readonly registrant: RegisteredBy = { via: 'client' },
  ) {}

  /**
   * Registers a task (a Temporal Schedule `hermes-task-<name>`). Checked before anything reaches the server:
   * the name, when it fires (TaskError naming the problem) and the run config. A task of the same name is an
   * error unless `replace` is set.
   */
  async create(def: TaskDefinition, opts: { replace?: boolean } = {}): Promise<TaskInfo> {
    return registerTask(this.client, this.taskQueue, checkedDefinition(def), { registeredBy: this.registrant, replace: opts.replace });
  }

  /** Every Hermes task in the namespace, by name. */
  list(): Promise<TaskInfo[]> {
    return listTasks(this.client);
  }

  describe(name: string): Promise<TaskInfo> {
    return describeTask(this.client, name);
  }

  /** The task's complete definition, read back from its schedule (memo, the firing's input, the policies). */
  async definition(name: string): Promise<TaskDefinition> {
    return definitionOf(name, await this.schedule(name));
  }

  private schedule(name: string): Promise<ScheduleDescription> {
    return this.client.schedule
      .getHandle(scheduleIdOf(name))
      .describe()
      .catch((err: unknown) => {
        if (err instanceof ScheduleNotFoundError) throw new TaskError(`no task named "${name}" (list them with hermes schedule list)`);
        throw err;
      });
  }

  pause(name: string, note?: string): Promise<void> {
    return pauseTask(this.client, name, note);
  }

  resume(name: string, note?: string): Promise<void> {
    return resumeTask(this.client, name, note);
  }

  /** Fires the task now, even while another firing runs. */
  trigger(name: string): Promise<void> {
    return triggerTask(this.client, name);
  }

  /**
   * Changes a task, keeping everything not named in `changes` (a key set to `undefined` removes it). The
   * schedule is registered anew, paused again if it was. A one-shot keeps its fire time unless `when` changes;
   * one that has fired needs a new `when`.
   */
  async update(name: string, changes: TaskChanges): Promise<TaskInfo> {
    const schedule = await this.schedule(name);
    const current = definitionOf(name, schedule);
    // definition() gives a one-shot's `when` as its ISO fire time.
    if (changes.when === undefined && /^\d{4}-\d{2}-\d{2}T/.test(current.when) && Date.parse(current.when) <= Date.now()) {
      throw new TaskError(`task "${name}" is a one-shot that fired at ${current.when}: give it a new when to run it again`);
    }
    const config: TaskConfig = { ...current.config, ...changes.config };
    if (current.config?.limits || changes.config?.limits) config.limits = { ...current.config?.limits, ...changes.config?.limits };
    const def: TaskDefinition = { ...current, ...changes, name, config };
    const info = await registerTask(this.client, this.taskQueue, checkedDefinition(def), { registeredBy: this.registrant, replace: true });
    if (!schedule.state.paused) return info;
    await pauseTask(this.client, name, schedule.state.note ?? 'paused');
    return this.describe(name);
  }

  delete(name: string): Promise<void> {
    return deleteTask(this.client, name);
  }

  /** The task's firings, newest first: Temporal's status, and the conversation's status, reason and answer. */
  runs(name: string, limit?: number): Promise<TaskRun[]> {
    return taskRuns(this.client, name, limit);
  }
}

/**
 * Checks a definition without touching the cluster (name, when, run config, tool names: TaskError or
 * WhenError naming the problem) and returns it as it is registered: a relative workspace taken from the
 * current directory, and every limit written down, as `Hermes.start` does — a firing's budgets are the ones
 * registered, not whatever the defaults are when it fires.
 */
export function checkedDefinition(def: TaskDefinition): TaskDefinition {
  const config: TaskConfig = { ...def.config, limits: { ...DEFAULT_LIMITS, ...def.config?.limits } };
  if (config.workspace) config.workspace = path.resolve(config.workspace);
  const checked = { ...def, config };
  checkTask(checked);
  const unknown = resolveTools(config.tools).unknown;
  if (unknown.length)
    throw new TaskError(`the run config of task "${def.name}" is not valid: tools: unknown tools or toolsets: ${unknown.join(', ')}`);
  return checked;
}

function definitionOf(name: string, d: ScheduleDescription): TaskDefinition {
  const memo = (d.memo?.hermes ?? {}) as Partial<TaskDefinition>;
  if (typeof memo.when !== 'string') throw new TaskError(`the schedule ${d.scheduleId} was not registered by hermes: it has no task definition`);
  const input = (d.action.args?.[0] ?? {}) as ConversationInput;
  const { prompt, mode, scheduled, schedule, ...config } = input;
  const overlap = d.policies.overlap ? OVERLAP_OF[d.policies.overlap] : undefined;
  return {
    name,
    when: oneShotTime(d) ?? memo.when,
    ...(memo.timezone ? { timezone: memo.timezone } : {}),
    prompt: prompt ?? memo.prompt ?? '',
    ...(memo.description ? { description: memo.description } : {}),
    ...(Object.keys(config).length ? { config } : {}),
    ...(schedule?.webhook ? { webhook: schedule.webhook } : {}),
    ...(schedule?.allowSchedules ? { allowSchedules: true } : {}),
    ...(overlap ? { overlap } : {}),
    catchupWindowSec: Math.round(d.policies.catchupWindow / 1000),
    ...(d.policies.pauseOnFailure ? { pauseOnFailure: true } : {}),
  };
}

/** A one-shot's fire time as an ISO timestamp (src/schedules/when.ts writes it in the calendar's comment), so
 * a relative `in 45m` is not counted again from the time of the update. */
function oneShotTime(d: ScheduleDescription): string | undefined {
  const comment = d.spec.calendars?.[0]?.comment;
  return comment?.startsWith('once at ') ? comment.slice('once at '.length) : undefined;
}
