// The public way to write your own tool: `defineTool({ name, description, parameters, handler })` in a module the
// config file lists under `tools.modules`. Re-exported from the package entry (src/client.ts).
import type { z } from 'zod';
import { ToolResultError, type ExternalToolContext } from './catalog';

export { ToolResultError, type ExternalToolContext };

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  /** Letters, digits, _ and -, at most 64; must not be the name of a built-in tool. */
  name: string;
  /** Starts with a verb and says what comes back: the model reads it to decide when to call the tool. */
  description: string;
  /** The arguments as a zod object (every field with .describe()), or a JSON Schema object. */
  parameters: S | Record<string, unknown>;
  /** Read-only tools of one model message run concurrently; the others one at a time, in order. Default false. */
  readOnly?: boolean;
  /** Time limit of one call (the activity's start-to-close timeout). Default 15 minutes. */
  timeoutMs?: number;
  /**
   * Gets the validated arguments and a context (workspace, resolvePath, abort signal, heartbeat, log): a path the
   * model gives goes through `await ctx.resolvePath(p)`, which follows symlinks and refuses one outside the
   * workspace, as the built-in file tools do. Returns the result the
   * model reads (a string; anything else is JSON-encoded). A thrown error becomes an error result the model
   * reads — it is not retried.
   */
  handler: (args: z.infer<S>, ctx: ExternalToolContext) => unknown;
}

export const TOOL_MARK = Symbol.for('hermes.tool');
export type DefinedTool = ToolDefinition & { [TOOL_MARK]: true };

export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): DefinedTool {
  return { ...(def as ToolDefinition), [TOOL_MARK]: true };
}
