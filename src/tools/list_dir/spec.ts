// `list_dir`: a directory's entries to a depth. Workflow-safe: the spec only; handler.ts beside it reads the
// directory in the tool activity.
import { z } from 'zod';
import { defineTool } from '../spec';

export const listDirSpec = defineTool({
  name: 'list_dir',
  description:
    'Lists the entries of a workspace directory as an indented tree: directories end with "/", files show ' +
    'their size; node_modules and .git are shown but not entered; at most 500 entries.',
  brief: 'Lists the files and folders of a workspace directory.',
  schema: () =>
    z.object({
      path: z.string().optional().describe('Directory, relative to the workspace. Default ".".'),
      depth: z.number().int().min(1).max(4).optional().describe('How many levels to descend, 1-4. Default 1.'),
    }),
  concurrency: 'read',
  idempotent: true,
});
