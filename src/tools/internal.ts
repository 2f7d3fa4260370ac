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

export const INTERNAL_TOOL_SPECS = [todoSpec, clarifySpec];
