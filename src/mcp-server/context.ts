// What every tool of `hermes mcp` is given, the one way a tool finds a conversation (the caller's own, or "no
// conversation" — the same answer for one that does not exist and one of another principal), and the shape of
// tool results: JSON text for the model, the same object as structured content for code.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ConversationHandle, Hermes, TemporalStatus } from '../client';
import type { TurnsInFlight } from '../http-api/session-view';
import { z } from 'zod';
import type { StartOptions } from '../shared/contract';
import { owns, type Caller } from './caller';

export interface McpContext {
  hermes: Hermes;
  caller: Caller;
  /** The model profiles `start_task` accepts (`model`), read once at start. */
  profiles: { defaultName: string; names: string[] };
  /** Start options of every task this server starts (the server's --workspace). */
  defaults: Partial<StartOptions>;
  /** Chat turns this process has sent and not yet seen answered (task_result waits for them). */
  turns: TurnsInFlight;
  log: (line: string) => void;
}

/** A failure the caller can act on: its message is the tool's error text. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

export const conversationIdField = () => z.string().min(1).max(1_000).describe('The conversation id start_task returned');

export const CONVERSATION_URI = 'hermes://conversations/{id}';

/** The transcript resource of a conversation; the id is encoded, since a principal's ids hold a `/`. */
export function conversationUri(id: string): string {
  return `hermes://conversations/${encodeURIComponent(id)}`;
}

/** The caller's conversation of that id, with its status on the server; ToolInputError when there is none. */
export async function conversationOf(ctx: McpContext, id: string): Promise<{ handle: ConversationHandle; status: TemporalStatus }> {
  const none = () =>
    new ToolInputError(`no conversation ${JSON.stringify(id.slice(0, 200))}${ctx.caller.principal ? ` of principal ${ctx.caller.principal}` : ''}`);
  if (!owns(ctx.caller, id)) throw none();
  const handle = ctx.hermes.get(id);
  let d;
  try {
    d = await handle.workflow.describe();
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') throw none();
    throw err;
  }
  if (d.type !== 'conversationWorkflow') throw new ToolInputError(`${id} is not a conversation (its workflow type is ${d.type})`);
  return { handle, status: (d.status.name as TemporalStatus | undefined) ?? 'UNKNOWN' };
}

/** A running conversation of the caller's; ToolInputError naming what to do when it has ended. */
export async function runningConversation(ctx: McpContext, id: string, action: string): Promise<ConversationHandle> {
  const { handle, status } = await conversationOf(ctx, id);
  if (status !== 'RUNNING') throw new ToolInputError(`${id} has ended (${status.toLowerCase()}): nothing to ${action}; task_result gives its answer`);
  return handle;
}

/** Updates need a worker to run their validator: without one they would wait, so say it now. */
export async function needWorker(ctx: McpContext, handle: ConversationHandle): Promise<void> {
  if (!(await handle.workerPolling()))
    throw new ToolInputError(`no worker polls the task queue "${ctx.hermes.taskQueue}": nothing would take the message (start one: hermes worker)`);
}

/** What the SDK gives a tool besides its arguments: the request's abort signal, its progress token, notifications. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export function toolResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }], structuredContent: data };
}

export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * A tool's handler with every failure turned into an error result (`isError`), so bad input or an unreachable
 * server never ends the server. Failures that are not the caller's are logged too.
 */
export function guarded<A>(ctx: McpContext, name: string, fn: (args: A, extra: ToolExtra) => Promise<CallToolResult>) {
  return async (args: A, extra: ToolExtra): Promise<CallToolResult> => {
    try {
      return await fn(args, extra);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof ToolInputError)) ctx.log(`${name}: ${message}`);
      return toolError(message);
    }
  };
}
