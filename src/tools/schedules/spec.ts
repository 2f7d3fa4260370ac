// The `schedules` toolset: the model registers and manages periodic prompts, which are Temporal Schedules
// (src/schedules/tasks.ts). Workflow-safe: specs only; the handlers (handler.ts beside it) run in
// the tool activity with the worker's Temporal client.
import { z } from 'zod';
import { isTaskName, TASK_LIMITS } from '../../schedules/limits';
import { defineTool } from '../spec';
const taskName = () =>
  z
    .string()
    // refine, not .regex(): zod's own regex checks fail in the workflow sandbox, where zod is frozen.
    .refine(isTaskName, 'use lowercase letters, digits, - or _, e.g. "daily-ci-report"')
    .describe('Unique name of the task, e.g. "daily-ci-report" (lowercase letters, digits, - and _)');

export const taskRegisterSpec = defineTool({
  name: 'task_register',
  description:
    'Registers a task that runs a prompt on a schedule, each time as a new unattended conversation with your tools, ' +
    'model and workspace. Returns the next three fire times in the task timezone: confirm them with the user.',
  schema: () =>
    z.object({
      task_name: taskName(),
      cron: z
        .string()
        .min(1)
        .max(TASK_LIMITS.whenChars)
        .describe(
          'When it runs: a 5-field cron expression ("0 9 * * 1-5" = weekdays 09:00; 6 fields = seconds first), ' +
            '@hourly/@daily/@weekly/@monthly, an interval ("every 30m", "every 2h"), or once ("in 45m", "2027-01-15T09:00")',
        ),
      task_prompt: z
        .string()
        .min(1)
        .max(TASK_LIMITS.promptChars)
        .describe('The prompt each run starts with; self-contained, it has no memory of this chat'),
      timezone: z.string().max(TASK_LIMITS.timezoneChars).optional().describe('IANA time zone for the cron, e.g. "Europe/Paris" (default UTC)'),
      description: z.string().max(TASK_LIMITS.descriptionChars).optional().describe('What the task is for, shown in listings'),
      max_iterations: z.number().int().min(1).max(500).optional().describe("Iteration budget of each run (default: this conversation's)"),
      tools: z.array(z.string()).max(TASK_LIMITS.tools).optional().describe('Tools or toolsets each run may use (default: the ones you have)'),
      deliver: z
        .string()
        .max(TASK_LIMITS.webhookChars)
        .optional()
        .describe('Webhook that receives each result as JSON: a URL, or "$NAME" for a URL the worker has in its environment'),
      replace: z.boolean().optional().describe('Replace an existing task of the same name (default: an error)'),
    }),
  concurrency: 'write',
  // A retried registration finds the schedule it created itself (tasks.ts registerTask).
  idempotent: true,
  cluster: true,
});

export const taskListSpec = defineTool({
  name: 'task_list',
  description: 'Lists the scheduled tasks: name, schedule, whether paused, next run and the prompt.',
  schema: () => z.object({}),
  concurrency: 'read',
  idempotent: true,
  cluster: true,
});

const byName = (what: string) => z.object({ task_name: taskName().describe(`Name of the task to ${what}`) });

/** A tool that acts on one task by name. */
function taskTool<S extends z.ZodType>(name: string, description: string, schema: () => S, concurrency: 'read' | 'write') {
  return defineTool({ name, description, schema, concurrency, idempotent: true, cluster: true });
}

export const taskCancelSpec = taskTool(
  'task_cancel',
  'Deletes a scheduled task for good (runs already finished stay visible). Returns what was deleted.',
  () => byName('delete'),
  'write',
);
export const taskPauseSpec = taskTool(
  'task_pause',
  'Pauses a scheduled task: it does not fire until resumed. Returns its state.',
  () => byName('pause'),
  'write',
);
export const taskResumeSpec = taskTool(
  'task_resume',
  'Resumes a paused scheduled task. Returns its next fire times.',
  () => byName('resume'),
  'write',
);
export const taskRunsSpec = taskTool(
  'task_runs',
  "Lists a task's recent runs, newest first: status (with the failure reason), start time and the first line of each answer.",
  () => byName('show').extend({ limit: z.number().int().min(1).max(50).optional().describe('How many runs (default 10)') }),
  'read',
);

export const SCHEDULE_TOOL_SPECS = [taskRegisterSpec, taskListSpec, taskCancelSpec, taskPauseSpec, taskResumeSpec, taskRunsSpec];
export const SCHEDULE_TOOLS = SCHEDULE_TOOL_SPECS.map((s) => s.name);
