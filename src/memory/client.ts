// Reads and writes the memory of a scope from node code: the memory tool (in the tool activity), the snapshot
// activity, `hermes.memory(scope)` and `hermes memory`. A write is update-with-start: the first write to a scope
// creates its memory workflow, later ones go to the running one (workflowIdConflictPolicy USE_EXISTING). A clear
// goes to the running one only: clearing a scope that has none creates nothing.
//
// A write is redacted before it is sent, like a tool result: its arguments are recorded in the memory workflow's
// history and the entries enter every later conversation's system prompt, so a secret must not get that far.
import {
  QueryNotRegisteredError,
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import {
  DEFAULT_MEMORY_LIMITS,
  isMemoryScope,
  memoryWorkflowId,
  SCOPE_RULE,
  type MemoryInput,
  type MemoryLimits,
  type MemoryStoreName,
  type MemoryView,
  type MemoryWrite,
  type MemoryWriteResult,
} from '../shared/memory';
import { memoryClearUpdate, memoryQuery, memoryWriteUpdate } from '../shared/messages';
import { Redactor } from '../security/redact';
import type { memoryWorkflow } from '../workflows/memory';

export type { MemoryLimits, MemoryView, MemoryWrite, MemoryWriteResult } from '../shared/memory';

/** A write or clear the memory workflow refused (its validator's reason), or a bad scope. */
export class MemoryError extends Error {
  override name = 'MemoryError';
}

/** Store limits from the worker's environment (HERMES_MEMORY_NOTES_CHARS, HERMES_MEMORY_USER_CHARS); they apply when a scope's memory is created. */
export function memoryLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): MemoryLimits {
  const read = (v: string | undefined, dflt: number) => {
    const n = Number(v);
    return v && Number.isInteger(n) && n >= 100 && n <= 100_000 ? n : dflt;
  };
  return {
    notes: read(env.HERMES_MEMORY_NOTES_CHARS, DEFAULT_MEMORY_LIMITS.notes),
    user: read(env.HERMES_MEMORY_USER_CHARS, DEFAULT_MEMORY_LIMITS.user),
  };
}

export interface MemoryClientOptions {
  taskQueue: string;
  /** Limits of the stores if this client creates the scope's memory (default: the environment's, else 2,200 and 1,375). */
  limits?: Partial<MemoryLimits>;
  /** Continue-as-new after this many writes per run (tests). */
  writesPerRun?: number;
  /** Applied to a write's text and match before it is sent (default: this process's secret-named variables and the built-in rules). */
  redactor?: Redactor;
}

/** A write as it was sent, and how many secrets the redactor replaced in it. */
export function redactWrite(w: MemoryWrite, redactor: Redactor): { write: MemoryWrite; redactions: number } {
  let redactions = 0;
  const clean = (s: string) => {
    const r = redactor.redact(s);
    redactions += r.count;
    return r.text;
  };
  const write: MemoryWrite =
    w.action === 'add'
      ? { ...w, text: clean(w.text) }
      : w.action === 'replace'
        ? { ...w, match: clean(w.match), text: clean(w.text) }
        : { ...w, match: clean(w.match) };
  return { write, redactions };
}

/**
 * The stores with every entry redacted, for a snapshot that enters a system prompt: an entry stored before
 * writes were redacted (or through a way around our clients) does not spread into every new conversation.
 */
export function redactMemoryView(view: MemoryView, redactor: Redactor): MemoryView {
  const store = (s: MemoryView['notes']) => ({ ...s, entries: s.entries.map((e) => redactor.text(e)) });
  return { ...view, notes: store(view.notes), user: store(view.user) };
}

export class MemoryClient {
  readonly workflowId: string;
  #redactor: Redactor | undefined;

  constructor(
    private readonly client: Client,
    readonly scope: string,
    private readonly opts: MemoryClientOptions,
  ) {
    this.workflowId = memoryWorkflowId(scope);
  }

  /** A client for a scope named by a person or a conversation input: checked first. */
  static checked(client: Client, scope: string, opts: MemoryClientOptions): MemoryClient {
    if (!isMemoryScope(scope)) throw new MemoryError(`memory scope "${scope}": ${SCOPE_RULE}`);
    return new MemoryClient(client, scope, opts);
  }

  /** The stores; empty ones when nothing was ever written to this scope. */
  async read(): Promise<MemoryView> {
    try {
      return await this.client.workflow.getHandle(this.workflowId).query(memoryQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || err instanceof QueryNotRegisteredError) return this.empty();
      throw err;
    }
  }

  /**
   * Adds, replaces or removes an entry, redacted first (`redactions` and the message say how many secrets were
   * replaced). A refused write (injection pattern, a credential, no or several matching entries, over the limit)
   * throws MemoryError with the reason and the entries. `updateId` makes a retried write (e.g. the tool
   * activity's) apply once.
   */
  async write(w: MemoryWrite, opts: { updateId?: string } = {}): Promise<MemoryWriteResult & { redactions?: number }> {
    const { write, redactions } = redactWrite(w, (this.#redactor ??= this.opts.redactor ?? new Redactor({ env: process.env })));
    const r = await this.refusals(() =>
      this.client.workflow.executeUpdateWithStart(memoryWriteUpdate, {
        args: [write],
        ...(opts.updateId ? { updateId: opts.updateId } : {}),
        startWorkflowOperation: this.startOperation(),
      }),
    );
    if (redactions) {
      const what = redactions === 1 ? '1 secret was' : `${redactions} secrets were`;
      return { ...r, message: `${r.message} ${what} replaced with a placeholder before storing.`, redactions };
    }
    // Redacted earlier (a model's tool call is redacted in the model activity): say so, so nobody counts on it.
    if ('text' in write && write.text.includes('[REDACTED:'))
      return { ...r, message: `${r.message} The text holds redaction placeholders: the secrets themselves were not stored.` };
    return r;
  }

  /**
   * Empties one store or both. A scope nothing was ever written to has no memory workflow, and clearing it does
   * not create one: MemoryError says so.
   */
  async clear(store?: MemoryStoreName): Promise<MemoryView> {
    try {
      return await this.refusals(() =>
        this.client.workflow.getHandle(this.workflowId).executeUpdate(memoryClearUpdate, { args: [store ? { store } : {}] }),
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        throw new MemoryError(`memory scope "${this.scope}" does not exist (nothing was ever written to it): nothing to clear`);
      }
      throw err;
    }
  }

  private startOperation() {
    const limits = { ...memoryLimitsFromEnv(), ...this.opts.limits };
    const input: MemoryInput = {
      scope: this.scope,
      notesLimit: limits.notes,
      userLimit: limits.user,
      ...(this.opts.writesPerRun ? { writesPerRun: this.opts.writesPerRun } : {}),
    };
    return new WithStartWorkflowOperation<typeof memoryWorkflow>('memoryWorkflow', {
      workflowId: this.workflowId,
      taskQueue: this.opts.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `hermes memory: ${this.scope}`,
    });
  }

  private async refusals<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      // A rejected update (its validator threw) and a failed one both arrive as WorkflowUpdateFailedError.
      if (err instanceof WorkflowUpdateFailedError) throw new MemoryError(reasonOf(err));
      throw err;
    }
  }

  private empty(): MemoryView {
    const limits = { ...memoryLimitsFromEnv(), ...this.opts.limits };
    return { scope: this.scope, notes: { entries: [], limit: limits.notes }, user: { entries: [], limit: limits.user }, writes: 0 };
  }
}

function reasonOf(err: WorkflowUpdateFailedError): string {
  const cause = err.cause as { message?: string } | undefined;
  return cause?.message || err.message;
}
