// The resource `hermes://conversations/{id}`: a conversation's transcript as `hermes search --show` prints it
// (src/sessions/view.ts), read from the conversation itself, so a finished one needs a worker to replay it. The
// list is the caller's newest conversations.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { listConversations } from '../inspect/list';
import { viewSession } from '../sessions/view';
import { callerScope } from './caller';
import { CONVERSATION_URI, conversationOf, conversationUri, ToolInputError, type McpContext } from './context';

/** Much more than session_view's 8,000: a client reads the transcript, a model's context is not at stake. */
const MAX_CHARS = 200_000;
const LISTED = 20;
/** A finished conversation's transcript is a query a worker answers by replaying it: not forever. */
const QUERY_MS = 15_000;

export function registerTranscript(server: McpServer, ctx: McpContext): void {
  const list = async () => {
    const scope = callerScope(ctx.caller);
    const rows = await listConversations(ctx.hermes, { limit: LISTED, ...(scope ? { query: `HermesScope = "${scope}"` } : {}) });
    return {
      resources: rows.map((r) => ({
        uri: conversationUri(r.id),
        name: r.id,
        title: `${r.status}: ${(r.prompt ?? r.id).slice(0, 100)}`,
        mimeType: 'text/plain',
      })),
    };
  };
  server.registerResource(
    'conversation',
    new ResourceTemplate(CONVERSATION_URI, { list }),
    {
      title: 'Conversation transcript',
      description: "A conversation's messages: the user's, the assistant's answers and tool calls, tool results (long ones cut)",
      mimeType: 'text/plain',
    },
    async (uri, vars) => {
      const raw = Array.isArray(vars.id) ? vars.id.join(',') : (vars.id ?? '');
      let id: string;
      try {
        id = decodeURIComponent(raw);
      } catch {
        throw new McpError(ErrorCode.InvalidParams, `${uri.href}: the id is not percent-encoded properly`);
      }
      try {
        await conversationOf(ctx, id);
        const text = await ctx.hermes.client.connection.withDeadline(Date.now() + QUERY_MS, () =>
          viewSession(ctx.hermes.client, id, { taskQueue: ctx.hermes.taskQueue, maxChars: MAX_CHARS }),
        );
        return { contents: [{ uri: uri.href, mimeType: 'text/plain', text }] };
      } catch (err) {
        if (err instanceof ToolInputError || (err as Error).name === 'SessionViewError')
          throw new McpError(ErrorCode.InvalidParams, (err as Error).message);
        throw err;
      }
    },
  );
}
