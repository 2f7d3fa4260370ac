// Tool metadata the workflow needs (name, schema, concurrency class, idempotency). Workflow-safe: this file
// and everything under specs/ must not import node built-ins or anything with I/O, because the workflow
// validates arguments and plans batches with it inside the deterministic sandbox.
import type { Client } from '@temporalio/client';
import type { z } from 'zod';
import type { ConversationInput } from '../shared/contract';
import type { MemoryLimits } from '../shared/memory';
import type { Redactor } from '../security/redact';
import type { Isolation } from './isolation';

export interface ToolSpec<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** Starts with a verb and says what comes back. */
  readonly description: string;
  /** Arguments; every field has .describe(). */
  readonly schema: S;
  /** 'read' tools in one model message run concurrently; 'write' tools run one at a time, in order. */
  readonly concurrency: 'read' | 'write';
  /** Safe to re-run after a crash left its outcome unknown. */
  readonly idempotent: boolean;
  /** Runs inside the workflow (todo, clarify), not as an activity. */
  readonly internal?: boolean;
  /** Acts on the Temporal cluster (schedules): the activity gets the client and the conversation's run config. */
  readonly cluster?: boolean;
}

export interface ToolSpecInit<S extends z.ZodType> extends Omit<ToolSpec<S>, 'schema'> {
  /** Builds the schema; called once, on first use. */
  schema: () => S;
}

/** Builds its schema on first use: a conversation pays only for the tools it calls (docs/design-notes.md, "Worker memory"). */
class LazyToolSpec<S extends z.ZodType> implements ToolSpec<S> {
  readonly name: string;
  readonly description: string;
  readonly concurrency: 'read' | 'write';
  readonly idempotent: boolean;
  readonly internal?: boolean;
  readonly cluster?: boolean;
  readonly #build: () => S;
  #schema: S | undefined;

  constructor(init: ToolSpecInit<S>) {
    this.name = init.name;
    this.description = init.description;
    this.concurrency = init.concurrency;
    this.idempotent = init.idempotent;
    if (init.internal) this.internal = true;
    if (init.cluster) this.cluster = true;
    this.#build = init.schema;
  }

  get schema(): S {
    return (this.#schema ??= this.#build());
  }
}

export function defineTool<S extends z.ZodType>(init: ToolSpecInit<S>): ToolSpec<S> {
  return new LazyToolSpec(init);
}

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
