// `delegate_task`: hands work to sub-agents, each a child conversation. Runs inside the workflow (no activity):
// src/workflows/subagents/delegate.ts starts and awaits the children, called from src/workflows/loop/execute-tool.ts.
// Workflow-safe.
import { z } from 'zod';
import { defineTool } from '../spec';

export const DELEGATE_TASK = 'delegate_task';
/** Tasks one delegate_task call may hand out. */
export const MAX_DELEGATED_TASKS = 10;

export const delegateTaskSpec = defineTool({
  name: DELEGATE_TASK,
  description:
    'Hands work to sub-agents that run on their own (several at once) and returns, for each, its status and a concise summary of what it did and found. ' +
    'Give one goal, or a list of independent tasks. A sub-agent sees only what you write in goal and context, not this conversation.',
  schema: () =>
    z
      .object({
        goal: z.string().min(1).max(20_000).optional().describe('The task for a single sub-agent (or, with tasks, the overall goal they serve)'),
        context: z.string().max(100_000).optional().describe('Facts, file paths and constraints the sub-agent(s) need'),
        tasks: z
          .array(
            z.object({
              goal: z.string().min(1).max(20_000).describe('What this sub-agent must do'),
              context: z.string().max(100_000).optional().describe('Context for this task only'),
              tools: z.array(z.string().min(1)).max(50).optional().describe('Toolsets or tools it may use (default: yours)'),
              model: z.string().min(1).max(200).optional().describe('Model profile for it (default: yours)'),
            }),
          )
          .min(1)
          .max(MAX_DELEGATED_TASKS)
          .optional()
          .describe(`Independent tasks, one sub-agent each (at most ${MAX_DELEGATED_TASKS})`),
        tools: z.array(z.string().min(1)).max(50).optional().describe('Toolsets or tools the sub-agents may use (default: yours)'),
      })
      .refine((a) => Boolean(a.goal || a.tasks?.length), 'give a goal or a list of tasks'),
  concurrency: 'write',
  idempotent: false,
  internal: true,
});
