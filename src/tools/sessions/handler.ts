// The `sessions` toolset in the tool activity: searches and reads conversations of the calling conversation's
// scope (its memory scope) on its task queue, never its own, with the worker's Temporal client. The activity
// redacts the result like every tool's.
import { searchScopeOf } from '../../shared/session-summary';
import { formatSearch, searchSessions } from '../../sessions/search';
import { SessionViewError, viewSession } from '../../sessions/view';
import { builtinTool, ToolError, type ToolContext, type ToolHandler } from '../handler';
import { sessionSearchSpec, sessionViewSpec } from './spec';

function cluster(ctx: ToolContext, tool: string) {
  if (!ctx.cluster) throw new ToolError(`${tool} is not available on this worker (no Temporal client in the tool activity)`);
  return { ...ctx.cluster, scope: searchScopeOf(ctx.cluster.conversation ?? {}) };
}

export const sessionSearch: ToolHandler<typeof sessionSearchSpec.schema> = async (args, ctx) => {
  const { client, taskQueue, scope } = cluster(ctx, 'session_search');
  const o = { taskQueue, scope, running: args.running ?? false, limit: args.limit ?? 5, ...(ctx.workflowId ? { exclude: ctx.workflowId } : {}) };
  let r;
  try {
    r = await searchSessions(client, args.query, o);
  } catch (err) {
    if ((err as Error).message.startsWith('the query has no words')) throw new ToolError((err as Error).message);
    throw err;
  }
  const text = formatSearch(args.query, r, o);
  return r.hits.length ? `${text}\nRead one with session_view(id).` : text;
};

export const sessionView: ToolHandler<typeof sessionViewSpec.schema> = async (args, ctx) => {
  const { client, taskQueue, scope } = cluster(ctx, 'session_view');
  try {
    return await viewSession(client, args.id, { taskQueue, scope });
  } catch (err) {
    if (err instanceof SessionViewError) throw new ToolError(err.message);
    throw err;
  }
};

export const sessionTools = [builtinTool(sessionSearchSpec, sessionSearch), builtinTool(sessionViewSpec, sessionView)];
