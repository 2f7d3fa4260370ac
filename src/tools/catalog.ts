// The shared shape of a tool that does not live in the workflow bundle: custom modules (src/tools/modules.ts),
// declarative HTTP tools and MCP toolsets all produce ExternalTools; the worker's catalog offers them to
// conversations as data (name, description, JSON schema, readOnly) and runs them in the tool activity.

export interface ExternalToolContext {
  workspace: string; // absolute real path of the conversation's workspace
  /**
   * The absolute real path of `path` (relative to the workspace, or absolute inside it), symlinks followed; throws
   * when it is outside the workspace — the check the built-in file tools make (src/tools/workspace.ts).
   */
  resolvePath: (path: string) => Promise<string>;
  signal: AbortSignal; // aborted on interrupt/cancel/timeout
  heartbeat: (details?: unknown) => void;
  log: (msg: string, meta?: Record<string, unknown>) => void; // redacted worker log
  callId: string;
  workflowId?: string;
}

export interface ExternalTool {
  name: string; // ^[a-zA-Z0-9_-]{1,64}$
  description: string;
  parameters: Record<string, unknown>; // JSON Schema of the arguments (type: object)
  readOnly: boolean; // read tools of one message run concurrently
  timeoutMs?: number;
  source: string; // 'builtin' | 'module:/abs/path.mjs' | 'http' | 'mcp:<server>'
  toolset: string; // e.g. 'custom', 'http', the MCP server's name
  run(args: Record<string, unknown>, ctx: ExternalToolContext): Promise<string>;
}

/** Thrown by run() for an error the model should read as the tool result (not retried). Anything else thrown
 *  is retried by Temporal per the activity's retry policy (use for 5xx, timeouts, a dead MCP server). */
export class ToolResultError extends Error {}
