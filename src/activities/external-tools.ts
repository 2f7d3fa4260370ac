// Running a catalog tool (custom module, HTTP, MCP) in the tool activity: the exact version the conversation
// recorded, its arguments checked against that version's JSON Schema, a ToolResultError as a result the model
// reads, anything else thrown left to Temporal's retry policy.
import { Context } from '@temporalio/activity';
import { logger } from '../observe/logger';
import type { ToolCallInput } from '../shared/wire';
import { ToolResultError, type ExternalTool } from '../tools/catalog';
import type { ToolCatalog } from '../tools/external';
import { resolveInWorkspace } from '../tools/workspace';

/** The recorded version of the tool, or the error result that explains why this worker cannot run it. */
export function findExternal(catalog: ToolCatalog | undefined, input: ToolCallInput): ExternalTool | string {
  const tool = catalog?.version(input.hash!);
  if (tool) return tool;
  if (catalog?.currentTool(input.name)) {
    return (
      `Error: ${input.name} was not run: this worker's ${input.name} is not the version this conversation started with ` +
      '(its module or definition changed since). Conversations started from now on get the new version.'
    );
  }
  const offered = catalog?.tools().map((t) => t.name) ?? [];
  return (
    `Error: ${input.name} was not run: the worker that ran this call has no tool named "${input.name}" ` +
    `(its custom tools: ${offered.length ? offered.join(', ') : 'none'}). Use another tool or answer without it.`
  );
}

export async function runExternal(
  tool: ExternalTool,
  args: Record<string, unknown>,
  workspace: string,
  callId: string,
  /** The activity's heartbeat (redacting, in runTool); default: the context's. */
  heartbeat?: (details?: unknown) => void,
): Promise<{ text: string; ok: boolean }> {
  const ctx = Context.current();
  const workflowId = ctx.info.workflowExecution?.workflowId;
  const log = logger.child({ tool: tool.name, workflowId, callId });
  const beatWith = heartbeat ?? ((d?: unknown) => ctx.heartbeat(d));
  const started = Date.now();
  // What the tool itself last reported (an MCP server's progress…): repeated, so the timer does not erase it.
  let reported: unknown;
  // Heartbeats keep a long call alive (and deliver cancellation) without the tool's author having to send them.
  const beat = setInterval(() => beatWith(reported ?? { tool: tool.name, elapsedSec: Math.floor((Date.now() - started) / 1000) }), 1_000);
  try {
    const text = await tool.run(args, {
      workspace,
      resolvePath: (p: string) => resolveInWorkspace(workspace, p),
      signal: ctx.cancellationSignal,
      heartbeat: (d?: unknown) => {
        if (d !== undefined) reported = d;
        beatWith(d);
      },
      log: (msg, meta) => log.info(meta ?? {}, msg),
      callId,
      ...(workflowId ? { workflowId } : {}),
    });
    return { text, ok: true };
  } catch (err) {
    if (err instanceof ToolResultError || (err instanceof Error && err.name === 'ToolResultError')) {
      return { text: `Error: ${err.message}`, ok: false };
    }
    throw err;
  } finally {
    clearInterval(beat);
  }
}
