// `write_file`: writes a whole file, creating its directories. Workflow-safe: the spec only; handler.ts beside it
// writes in the tool activity.
import { z } from 'zod';
import { defineTool } from '../spec';

export const writeFileSpec = defineTool({
  name: 'write_file',
  description:
    'Writes content to a file in the workspace, replacing it if it exists and creating parent directories; ' + 'returns "Wrote N bytes to <path>".',
  brief: 'Writes a file of the workspace (the whole content; folders are created).',
  schema: () =>
    z.object({
      path: z.string().min(1).describe('File path, relative to the workspace (or absolute inside it).'),
      content: z.string().describe('The complete new content of the file.'),
    }),
  concurrency: 'write',
  writesVerbatim: true,
  // Writing the same content twice leaves the same file: safe to re-run after a crash.
  idempotent: true,
});
