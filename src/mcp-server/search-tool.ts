// `search_conversations`: the search of `hermes search` (src/sessions/search.ts) — finished conversations (and, asked,
// running ones) whose prompts and answers hold the words. A principal searches its own scope only.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { formatSearch, searchSessions, searchWords } from '../sessions/search';
import { callerScope, owns } from './caller';
import { conversationUri, guarded, ToolInputError, type McpContext } from './context';

export function registerSearchTool(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'search_conversations',
    {
      title: 'Search conversations',
      description:
        'Finds past conversations whose prompts and answers hold the words (whole words, any case; all of them, else any), ' +
        'best first: their ids, status, dates and a snippet. Read one whole as the resource hermes://conversations/{id}.',
      inputSchema: {
        query: z.string().min(1).max(2_000).describe('The words to look for'),
        running: z.boolean().optional().describe('Also conversations still running (default: finished ones only)'),
        limit: z.number().int().min(1).max(50).optional().describe('At most this many (default 10)'),
        scope: z.string().min(1).max(100).optional().describe('Memory scope searched (default "default"; a principal: its own)'),
        allScopes: z.boolean().optional().describe('Search every scope (the local user only)'),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(ctx, 'search_conversations', async (a) => {
      if (!searchWords(a.query).length) throw new ToolInputError('query has no words to look for (letters or digits)');
      const own = callerScope(ctx.caller);
      if (own !== undefined && (a.allScopes || (a.scope !== undefined && a.scope !== own)))
        throw new ToolInputError(`a principal searches its own conversations only (scope "${own}")`);
      const scope = own ?? (a.allScopes ? undefined : (a.scope ?? 'default'));
      const o = { taskQueue: ctx.hermes.taskQueue, running: a.running === true, limit: a.limit ?? 10, ...(scope !== undefined ? { scope } : {}) };
      const r = await searchSessions(ctx.hermes.client, a.query, o);
      // The scope filter is the principal's boundary; the id check holds it too for a run filed under another scope.
      const hits = r.hits.filter((h) => owns(ctx.caller, h.id)).map((h) => ({ ...h, transcript: conversationUri(h.id) }));
      const found = { ...r, hits };
      return { content: [{ type: 'text', text: formatSearch(a.query, found, o) }], structuredContent: { ...found, scope: scope ?? null } };
    }),
  );
}
