// The `schedules` tools, run in the tool activity with the worker's Temporal client. A task inherits the
// calling conversation's run config (model, tools, workspace, limits); its runs deny approvals unless the
// conversation allowed every command.
import type { z } from 'zod';
import type { ConversationInput } from '../../shared/contract';
import { DEFAULT_LIMITS } from '../../shared/defaults';
import {
  checkTask,
  deleteTask,
  describeTask,
  formatNextRuns,
  listTasks,
  pauseTask,
  registerTask,
  resumeTask,
  taskRuns,
  TASK_LIMITS,
  TaskError,
  type TaskDefinition,
  type TaskInfo,
} from '../../schedules/tasks';
import { WhenError } from '../../schedules/when';
import { resolveTools } from '../registry';
import { builtinTool, ToolError, type ToolContext, type ToolHandler } from '../handler';
import { taskCancelSpec, taskListSpec, taskPauseSpec, taskRegisterSpec, taskResumeSpec, taskRunsSpec } from './spec';

type RegisterArgs = z.infer<typeof taskRegisterSpec.schema>;

function cluster(ctx: ToolContext) {
  if (!ctx.cluster) throw new ToolError('schedules are not available on this worker (no Temporal client in the tool activity)');
  return ctx.cluster;
}

/** Errors the model can act on (a bad cron, an existing name) are results, not failures. */
async function asResult(fn: () => Promise<string>): Promise<string> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof TaskError || err instanceof WhenError) throw new ToolError(err.message);
    throw err;
  }
}

/** The run config a task's firings get: the conversation's, narrowed by the call's arguments. */
function runConfig(conversation: ConversationInput | undefined, args: RegisterArgs): TaskDefinition['config'] {
  const c = conversation ?? { prompt: '' };
  if (args.tools) {
    const { unknown } = resolveTools(args.tools);
    if (unknown.length) throw new ToolError(`unknown tools or toolsets: ${unknown.join(', ')}`);
  }
  const tools = args.tools ?? c.tools;
  return {
    ...(c.model ? { model: c.model } : {}),
    ...(c.fallbackModel ? { fallbackModel: c.fallbackModel } : {}),
    ...(c.workspace ? { workspace: c.workspace } : {}),
    ...(tools ? { tools } : {}),
    ...(c.system ? { system: c.system } : {}),
    ...(c.memoryScope ? { memoryScope: c.memoryScope } : {}),
    // Nobody watches a scheduled run: approvals are denied unless this conversation allowed every command.
    approvalMode: c.approvalMode === 'allow' ? 'allow' : 'deny',
    ...(c.searchAttributes === false ? { searchAttributes: false } : {}),
    // An unattended firing never inherits "no step cap" (maxIterations 0) from a long-lived chat: it gets the default.
    limits: {
      ...c.limits,
      ...(args.max_iterations
        ? { maxIterations: args.max_iterations }
        : c.limits?.maxIterations === 0
          ? { maxIterations: DEFAULT_LIMITS.maxIterations }
          : {}),
    },
  };
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

function describe(t: TaskInfo): string {
  const state = t.paused ? 'paused' : t.remainingActions === 0 ? 'done (one-shot fired)' : 'active';
  return [
    `${t.name}: ${t.when}${t.timezone !== 'UTC' ? ` (${t.timezone})` : ''} — ${state}`,
    `  next: ${formatNextRuns(t.nextRuns.slice(0, 3), t.timezone)}`,
    `  prompt: ${clip(t.prompt, 200)}`,
    // Capped at registration since issue 18; a task registered before may have a longer one.
    ...(t.description ? [`  description: ${clip(t.description, TASK_LIMITS.descriptionChars)}`] : []),
    ...(t.webhook ? [`  results to: ${t.webhook.startsWith('$') ? t.webhook : 'a webhook'}`] : []),
  ].join('\n');
}

export const taskRegister: ToolHandler<typeof taskRegisterSpec.schema> = (args, ctx) =>
  asResult(async () => {
    const { client, taskQueue, conversation } = cluster(ctx);
    const def: TaskDefinition = {
      name: args.task_name,
      when: args.cron,
      ...(args.timezone ? { timezone: args.timezone } : {}),
      prompt: args.task_prompt,
      ...(args.description ? { description: args.description } : {}),
      config: runConfig(conversation, args),
      ...(args.deliver ? { webhook: args.deliver } : {}),
    };
    checkTask(def); // before anything is created: a bad schedule is the model's to fix
    const t = await registerTask(client, taskQueue, def, {
      registeredBy: { via: 'tool', ...(ctx.workflowId ? { workflowId: ctx.workflowId } : {}), callId: ctx.callId },
      ...(args.replace ? { replace: true } : {}),
    });
    const cfg = def.config ?? {};
    return [
      `Registered task "${t.name}" (Temporal schedule ${t.scheduleId}).`,
      // The server's own fire times (describe), not our computation of them: what the user confirms is what runs.
      `Next runs: ${formatNextRuns(t.nextRuns.slice(0, 3), t.timezone)}.`,
      `Each run is a new unattended conversation: model profile ${cfg.model ?? 'default'}, tools ${cfg.tools?.join(', ') ?? 'all but schedules and clarify'}, ` +
        `workspace ${cfg.workspace ?? "the worker's default"}, at most ${cfg.limits?.maxIterations ?? 'the default'} iterations; approvals ${cfg.approvalMode === 'allow' ? 'allowed' : 'denied'}.`,
      def.webhook
        ? `Results are POSTed to ${def.webhook.startsWith('$') ? def.webhook : 'the webhook'}.`
        : 'Results: task_runs, or `hermes schedule runs NAME`.',
      'Tell the user these times so they can confirm them.',
    ].join('\n');
  });

export const taskList: ToolHandler<typeof taskListSpec.schema> = (_args, ctx) =>
  asResult(async () => {
    const tasks = await listTasks(cluster(ctx).client);
    return tasks.length ? tasks.map(describe).join('\n') : 'No scheduled tasks.';
  });

export const taskCancel: ToolHandler<typeof taskCancelSpec.schema> = (args, ctx) =>
  asResult(async () => {
    const { client } = cluster(ctx);
    const t = await describeTask(client, args.task_name);
    await deleteTask(client, args.task_name);
    return `Deleted task "${t.name}" (${t.when}).`;
  });

export const taskPause: ToolHandler<typeof taskPauseSpec.schema> = (args, ctx) =>
  asResult(async () => {
    const { client } = cluster(ctx);
    await pauseTask(client, args.task_name, `paused by conversation ${ctx.workflowId ?? ''}`.trim());
    return `Paused.\n${describe(await describeTask(client, args.task_name))}`;
  });

export const taskResume: ToolHandler<typeof taskResumeSpec.schema> = (args, ctx) =>
  asResult(async () => {
    const { client } = cluster(ctx);
    await resumeTask(client, args.task_name, `resumed by conversation ${ctx.workflowId ?? ''}`.trim());
    return `Resumed.\n${describe(await describeTask(client, args.task_name))}`;
  });

export const taskRunsHandler: ToolHandler<typeof taskRunsSpec.schema> = (args, ctx) =>
  asResult(async () => {
    const { client } = cluster(ctx);
    await describeTask(client, args.task_name); // a clear error for an unknown name
    const runs = await taskRuns(client, args.task_name, args.limit ?? 10);
    if (!runs.length) return `Task "${args.task_name}" has not run yet.`;
    return runs
      .map((r) => {
        const status = r.status ? `${r.status}${r.reason ? ` (${r.reason})` : ''}` : r.execution.toLowerCase();
        const first = r.answer?.trim().split('\n')[0] ?? '';
        return `${r.startedAt?.toISOString() ?? '?'} ${status} ${r.workflowId}${first ? ` — ${first.slice(0, 200)}` : ''}`;
      })
      .join('\n');
  });

/** The task_* tools, in the order of SCHEDULE_TOOL_SPECS. */
export const taskTools = [
  builtinTool(taskRegisterSpec, taskRegister),
  builtinTool(taskListSpec, taskList),
  builtinTool(taskCancelSpec, taskCancel),
  builtinTool(taskPauseSpec, taskPause),
  builtinTool(taskResumeSpec, taskResume),
  builtinTool(taskRunsSpec, taskRunsHandler),
];
