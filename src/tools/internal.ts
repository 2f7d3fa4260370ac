// Agent-internal tools: executed by the workflow itself (no activity), because they only touch
// conversation state or wait for a human. Workflow-safe.
import { z } from 'zod';
import { defineTool } from './spec';

export const todoSpec = defineTool({
  name: 'todo',
  description:
    'Replaces (or with merge: true, updates by id) your task list for this conversation and returns the whole list. Use it to plan multi-step work and mark progress.',
  schema: () =>
    z.object({
      todos: z
        .array(
          z.object({
            id: z.string().min(1).describe('Stable id of the item, e.g. "1"'),
            content: z.string().min(1).optional().describe('What to do (required for new items)'),
            status: z.enum(['pending', 'in_progress', 'completed', 'cancelled']).optional().describe('Item status (default pending)'),
          }),
        )
        .max(50)
        .describe('Items to set'),
      merge: z.boolean().optional().describe('Update the listed items and keep the others (default: replace the list)'),
    }),
  concurrency: 'write',
  idempotent: true,
  internal: true,
});

export const clarifySpec = defineTool({
  name: 'clarify',
  description:
    'Asks the user a question and waits for the answer, which comes back as the result. Use only when you cannot proceed sensibly without it.',
  schema: () =>
    z.object({
      question: z.string().min(1).max(2_000).describe('The question, self-contained'),
      choices: z.array(z.string().min(1).max(200)).max(4).optional().describe('Up to 4 suggested answers'),
    }),
  concurrency: 'write',
  idempotent: true,
  internal: true,
});

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

export const INTERNAL_TOOL_SPECS = [todoSpec, clarifySpec, delegateTaskSpec];
