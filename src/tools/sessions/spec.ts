// The `sessions` toolset: `session_search` finds past conversations by the words of their turns (the engine's
// full-text index over the HermesSummary search attribute, src/sessions/search.ts), `session_view` reads one.
// Workflow-safe: specs only; the handlers (handler.ts beside it) run in the tool activity with the worker's client.
import { z } from 'zod';
import { defineTool } from '../spec';

export const sessionSearchSpec = defineTool({
  name: 'session_search',
  description:
    'Searches your past conversations with this user (their prompts and answers) for words, e.g. "what did we decide ' +
    'about the billing migration". Returns matching conversation ids, dates and a snippet around the match; read one ' +
    'with session_view. Whole words, any case; conversations having every word come first.',
  schema: () =>
    z.object({
      query: z.string().min(1).max(500).describe('The words to look for, e.g. "postgres migration decision"'),
      limit: z.number().int().min(1).max(20).optional().describe('At most this many conversations (default 5)'),
      running: z.boolean().optional().describe('Also search conversations still open (chats); default: finished ones only'),
    }),
  concurrency: 'read',
  idempotent: true,
  cluster: true,
});

export const sessionViewSpec = defineTool({
  name: 'session_view',
  description:
    "Reads one past conversation's transcript by its id (from session_search): the user's messages, your answers and " +
    'tool calls, long parts cut. Returns the transcript text.',
  schema: () =>
    z.object({
      id: z.string().min(1).max(200).describe('The conversation id session_search returned'),
    }),
  concurrency: 'read',
  idempotent: true,
  cluster: true,
});

export const SESSION_TOOL_SPECS = [sessionSearchSpec, sessionViewSpec];
export const SESSION_TOOLS = SESSION_TOOL_SPECS.map((s) => s.name);
