// `patch`: replaces an exact piece of text in a file. Workflow-safe: the spec only; handler.ts beside it edits the
// file in the tool activity.
import { z } from 'zod';
import { defineTool } from '../spec';

export const patchSpec = defineTool({
  name: 'patch',
  description:
    'Replaces an exact string in a workspace file and returns how many replacements were made; fails when ' +
    'old_string is not found, or is found more than once and replace_all is not set.',
  brief: 'Replaces exact text in a file of the workspace.',
  schema: () =>
    z.object({
      path: z.string().min(1).describe('File path, relative to the workspace (or absolute inside it).'),
      old_string: z.string().min(1).describe('Exact text to find, including whitespace and indentation.'),
      new_string: z.string().describe('Text to put in its place.'),
      replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one.'),
    }),
  concurrency: 'write',
  writesVerbatim: true,
  // A second run would not find old_string any more (or would replace a later occurrence).
  idempotent: false,
});
