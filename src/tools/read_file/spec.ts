// `read_file`: a text file's lines, numbered, a page at a time. Workflow-safe: the spec only; handler.ts beside it
// reads the file in the tool activity.
import { z } from 'zod';
import { defineTool } from '../spec';

export const readFileSpec = defineTool({
  name: 'read_file',
  description:
    'Returns the lines of a text file in the workspace, numbered like "  12| text", one page at a time; ' +
    'a footer gives the total line count and the offset of the next page when more remain.',
  brief: 'Reads a text file of the workspace: its numbered lines.',
  schema: () =>
    z.object({
      path: z.string().min(1).describe('File path, relative to the workspace (or absolute inside it).'),
      offset: z.number().int().min(1).optional().describe('First line to return, 1-based. Default 1.'),
      limit: z.number().int().min(1).max(5000).optional().describe('Maximum number of lines to return. Default 500.'),
    }),
  concurrency: 'read',
  idempotent: true,
});
