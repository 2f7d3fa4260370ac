// Tool metadata the workflow needs (name, schema, concurrency class, idempotency). Workflow-safe: this file,
// registry.ts and every tool folder's spec.ts (with what it imports) must not import node built-ins or anything
// with I/O, because the workflow validates arguments and plans batches with them inside the deterministic sandbox.
import type { z } from 'zod';

export interface ToolSpec<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** Starts with a verb and says what comes back. */
  readonly description: string;
  /**
   * One short line for small models (src/llm/profiles.ts isSmallProfile), which are sent it instead: a long
   * description costs a small window and shows the result's shape, which a 1.5B model then writes itself.
   */
  readonly brief?: string;
  /** The parameters a small model is shown (default: all); the others keep their defaults. */
  readonly briefParams?: readonly string[];
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
  /**
   * Writes what its arguments say as given (a file, a command, a skill): a call whose arguments hold a redaction
   * placeholder is refused before it runs (src/tools/withheld.ts), never written with the placeholder.
   */
  readonly writesVerbatim?: boolean;
  /**
   * Decides whether a call needs a human's approval (or is refused) before it runs; absent: it runs. Called by the
   * workflow with arguments that passed the schema (planToolCalls), so it must be pure and deterministic.
   */
  readonly approval?: (args: Record<string, unknown>) => ApprovalVerdict;
}

/** What a tool's approval rule says about one call. `pattern` names the rule, so an approval can be remembered. */
export interface ApprovalVerdict {
  verdict: 'allow' | 'approval' | 'refuse';
  reason?: string;
  pattern?: string;
}

export interface ToolSpecInit<S extends z.ZodType> extends Omit<ToolSpec<S>, 'schema'> {
  /** Builds the schema; called once, on first use. */
  schema: () => S;
}

/** Builds its schema on first use: a conversation pays only for the tools it calls (docs/design-notes.md, "Worker memory"). */
class LazyToolSpec<S extends z.ZodType> implements ToolSpec<S> {
  readonly name: string;
  readonly description: string;
  readonly brief?: string;
  readonly briefParams?: readonly string[];
  readonly concurrency: 'read' | 'write';
  readonly idempotent: boolean;
  readonly internal?: boolean;
  readonly cluster?: boolean;
  readonly writesVerbatim?: boolean;
  readonly approval?: (args: Record<string, unknown>) => ApprovalVerdict;
  readonly #build: () => S;
  #schema: S | undefined;

  constructor(init: ToolSpecInit<S>) {
    this.name = init.name;
    this.description = init.description;
    if (init.brief) this.brief = init.brief;
    if (init.briefParams) this.briefParams = init.briefParams;
    this.concurrency = init.concurrency;
    this.idempotent = init.idempotent;
    if (init.internal) this.internal = true;
    if (init.cluster) this.cluster = true;
    if (init.writesVerbatim) this.writesVerbatim = true;
    if (init.approval) this.approval = init.approval;
    this.#build = init.schema;
  }

  get schema(): S {
    return (this.#schema ??= this.#build());
  }
}

export function defineTool<S extends z.ZodType>(init: ToolSpecInit<S>): ToolSpec<S> {
  return new LazyToolSpec(init);
}
