// `clarify`: asks the user and waits for the answer. Runs inside the workflow (no activity): a durable wait for
// the `answer` update, in src/workflows/loop/human-waits.ts (askClarify), called from src/workflows/loop/execute-tool.ts.
// Workflow-safe.
import { z } from 'zod';
import { defineTool } from '../spec';

export const clarifySpec = defineTool({
  name: 'clarify',
  description:
    'Asks the user a question and waits for the answer, which comes back as the result. Use only when you cannot proceed sensibly without it.',
  brief: 'Asks the user a question and waits for the answer.',
  schema: () =>
    z.object({
      question: z.string().min(1).max(2_000).describe('The question, self-contained'),
      choices: z.array(z.string().min(1).max(200)).max(4).optional().describe('Up to 4 suggested answers'),
    }),
  concurrency: 'write',
  idempotent: true,
  internal: true,
});
