// Reads and writes a skills store (src/workflows/skills.ts) from node code: the skill tools (in the tool activity),
// the system prompt's skill list, `hermes skills`. Reads are `describe` (the memo): no worker has to answer. A write
// is update-with-start: the first one creates the store's workflow (workflowIdConflictPolicy USE_EXISTING). Texts
// are redacted before they are sent, like memory writes: the update's arguments are recorded in history.
import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { Redactor } from '../security/redact';
import {
  isSkillsStore,
  skillsFromMemo,
  SKILLS_STORE_RULE,
  skillsWorkflowId,
  skillWriteUpdate,
  type SkillsState,
  type SkillWrite,
  type SkillWriteResult,
} from '../shared/skills';
import type { skillsWorkflow } from '../workflows/skills';

/** A write the store refused (its validator's reason), or a bad store name. */
export class SkillsError extends Error {
  override name = 'SkillsError';
}

export const DEFAULT_SKILLS_STORE = 'default';

export interface SkillsClientOptions {
  taskQueue: string;
  /** Applied to the texts before they are sent (default: this process's secret-named variables and the built-in rules). */
  redactor?: Pick<Redactor, 'text'>;
  /** Continue-as-new after this many writes per run (tests). */
  writesPerRun?: number;
}

export class SkillsClient {
  readonly workflowId: string;

  constructor(
    private readonly client: Client,
    readonly store: string,
    private readonly opts: SkillsClientOptions,
  ) {
    if (!isSkillsStore(store)) throw new SkillsError(`skills store "${store}": ${SKILLS_STORE_RULE}`);
    this.workflowId = skillsWorkflowId(store);
  }

  /** The stored skills; none when nothing was ever written to this store. */
  async read(): Promise<SkillsState> {
    try {
      const d = await this.client.workflow.getHandle(this.workflowId).describe();
      return skillsFromMemo(d.memo);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return {};
      throw err;
    }
  }

  /** Applies a write (redacted first); a refused one throws SkillsError with the reason. `updateId` makes a retried write apply once. */
  async write(w: SkillWrite, opts: { updateId?: string } = {}): Promise<SkillWriteResult> {
    const redactor = this.opts.redactor ?? new Redactor({ env: process.env });
    const clean = (t: string) => redactor.text(t);
    const write: SkillWrite =
      w.action === 'create'
        ? {
            ...w,
            content: clean(w.content),
            ...(w.files ? { files: Object.fromEntries(Object.entries(w.files).map(([p, t]) => [p, clean(t)])) } : {}),
          }
        : w.action === 'patch'
          ? { ...w, old_string: w.old_string, new_string: clean(w.new_string) }
          : w.action === 'write_file'
            ? { ...w, content: clean(w.content) }
            : w;
    try {
      return await this.client.workflow.executeUpdateWithStart(skillWriteUpdate, {
        args: [write],
        ...(opts.updateId ? { updateId: opts.updateId } : {}),
        startWorkflowOperation: new WithStartWorkflowOperation<typeof skillsWorkflow>('skillsWorkflow', {
          workflowId: this.workflowId,
          taskQueue: this.opts.taskQueue,
          args: [{ store: this.store, ...(this.opts.writesPerRun ? { writesPerRun: this.opts.writesPerRun } : {}) }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          staticSummary: `hermes skills: ${this.store}`,
        }),
      });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) {
        const cause = err.cause as { message?: string } | undefined;
        throw new SkillsError(cause?.message || err.message);
      }
      throw err;
    }
  }
}
