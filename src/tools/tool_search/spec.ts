// `tool_search`: for a conversation shown only the core tools (a small model, src/workflows/rules/tool-view.ts), finds
// the other offered tools by what they do; the ones found are shown from the next model step on. Workflow-safe:
// the spec only; search.ts ranks (in the tool activity, so what it found is a recorded result).
import { z } from 'zod';
import { defineTool } from '../spec';

export const TOOL_SEARCH = 'tool_search';

export const toolSearchSpec = defineTool({
  name: TOOL_SEARCH,
  description: 'Finds more tools by what they do. Returns their names and descriptions; you can call them from then on.',
  schema: () =>
    z.object({
      query: z.string().min(1).max(200).describe('What you need a tool for, in a few words, e.g. "search text in files"'),
    }),
  concurrency: 'read',
  idempotent: true,
});
