// `todo`: the model's task list for this conversation. Runs inside the workflow (no activity): it only changes
// conversation state — TodoList in src/workflows/state/todo.ts, called from src/workflows/loop/execute-tool.ts.
// Workflow-safe.
import { z } from 'zod';
import { defineTool } from '../spec';

export const todoSpec = defineTool({
  name: 'todo',
  description:
    'Replaces (or with merge: true, updates by id) your task list for this conversation and returns the whole list. Use it to plan multi-step work and mark progress.',
  brief: 'Sets or updates your task list for this conversation.',
  schema: () =>
    z.object({
      todos: z
        .array(
          z.object({
            id: z.string().min(1).max(64).describe('Stable id of the item, e.g. "1"'),
            content: z.string().min(1).max(500).optional().describe('What to do (required for new items)'),
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
