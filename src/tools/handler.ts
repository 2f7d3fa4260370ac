// What a built-in tool's handler gets and returns. Activity side: handlers run in the tool activity
// (src/activities/tools.ts); the workflow only needs the specs (spec.ts). Types and one error class, no I/O.
import type { Client } from '@temporalio/client';
import type { z } from 'zod';
import type { ConversationInput } from '../shared/contract';
import type { MemoryLimits } from '../shared/memory';
import type { Redactor } from '../security/redact';
import type { Isolation } from './isolation';
import type { ToolSpec } from './spec';

/** What a handler gets besides its arguments. */
export interface ToolContext {
  /** Absolute, real path of the workspace root. */
  workspace: string;
  /** Aborted when the activity is cancelled (interrupt, workflow cancel, timeout). */
  signal: AbortSignal;
  /** Call regularly during long work so Temporal can tell a live tool from a dead worker. */
  heartbeat: (details?: unknown) => void;
  /** Default timeout of the terminal tool, seconds. */
  terminalTimeoutSec: number;
  callId: string;
  /** Where running terminal commands are written down (see orphans.ts). */
  processDir: string;
  workflowId?: string;
  /** Worker variables passed to processes the tool starts, besides the allow-list (src/tools/env.ts). */
  passEnv?: readonly string[];
  /**
   * Where `terminal` runs: in a bubblewrap sandbox (workspace writable, the rest read-only, no network unless
   * `network`) or not (src/tools/sandbox.ts). Absent: not sandboxed. `bwrap` names the binary (default on PATH).
   * Outside bwrap, `isolation` is the namespace launcher (src/tools/isolation.ts); absent, the terminal probes.
   */
  sandbox?: { mode: 'bwrap' | 'none'; network: boolean; bwrap?: string; isolation?: Isolation };
  /**
   * The worker's redactor (src/security/redact.ts), for what a tool reports while it runs (heartbeat details):
   * applied before anything is cut short, so a cut cannot leave half a secret the redactor no longer knows.
   * Absent: nothing to redact with. Results are redacted by the activity.
   */
  redact?: (text: string) => string;
  /** The activity's Temporal client and task queue (the skill tools' store); a function, so a handler that needs none never touches it. */
  temporal?: () => { client: Client; taskQueue: string };
  /** The skills store this worker's skill tools use (default "default"). */
  skillsStore?: string;
  /** For `cluster` tools: the worker's Temporal client, its task queue and the calling conversation's run config. */
  cluster?: {
    client: Client;
    taskQueue: string;
    conversation?: ConversationInput;
    /** Limits of a memory scope this worker creates. */ memoryLimits?: Partial<MemoryLimits>;
    /** The worker's redactor: memory writes are redacted with it before they are sent. */
    redactor?: Redactor;
  };
}

/** Thrown by handlers for problems the model should read (bad path, text not found…). */
export class ToolError extends Error {
  override name = 'ToolError';
}

export type ToolHandler<S extends z.ZodType = z.ZodType> = (args: z.infer<S>, ctx: ToolContext) => Promise<string>;

/**
 * A built-in tool as the tool activity runs it: the spec (the name the model calls, the schema its arguments are
 * parsed with) and the handler. Each tool folder's handler.ts exports one; handler-registry.ts lists them and
 * dispatches by the spec's name.
 */
export interface BuiltinTool<S extends z.ZodType = z.ZodType> {
  readonly spec: ToolSpec<S>;
  readonly handler: ToolHandler<S>;
}

/** Pairs a spec with its handler; the handler's argument type is checked against the spec's schema. */
export function builtinTool<S extends z.ZodType>(spec: ToolSpec<S>, handler: ToolHandler<S>): BuiltinTool<S> {
  return { spec, handler };
}
