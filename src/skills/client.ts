// Reads and writes a skills store (src/workflows/skills.ts) from node code: the skill tools (in the tool activity),
// the system prompt's skill list, `hermes skills`. Reads are `describe` (the memo): no worker has to answer. A write
// is update-with-start: the first one creates the store's workflow (workflowIdConflictPolicy USE_EXISTING). Texts
// that hold a secret are refused before they are sent: the update's arguments are recorded in history.
import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { Redactor } from '../security/redact';
import { SKILL_FILE } from '../shared/skill-format';
import { placeholdersIn } from '../shared/redaction-types';
import {
  isSkillsStore,
  skillsFromMemo,
  SKILLS_STORE_RULE,
  skillsWorkflowId,
  type SkillsState,
  type SkillWrite,
  type SkillWriteResult,
} from '../shared/skills';
import { skillWriteUpdate } from '../shared/messages';
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

  /**
   * Applies a write; a refused one throws SkillsError with the reason. One that holds a secret (what the redactor
   * would replace) is refused here, before it is sent: stored redacted, the skill would silently differ from what
   * was asked, and sent as is, the secret would be in the update's recorded arguments. `updateId` makes a retried
   * write apply once.
   */
  async write(write: SkillWrite, opts: { updateId?: string } = {}): Promise<SkillWriteResult> {
    const redactor = this.opts.redactor ?? new Redactor({ env: process.env });
    const texts: Array<[string, string]> =
      write.action === 'create'
        ? [[SKILL_FILE, write.content], ...Object.entries(write.files ?? {})]
        : write.action === 'patch'
          ? [['new_string', write.new_string]]
          : write.action === 'write_file'
            ? [[write.path, write.content]]
            : [];
    for (const [where, text] of texts) {
      const kinds = placeholdersIn(redactor.text(text)).filter((p) => !text.includes(p));
      if (kinds.length)
        throw new SkillsError(
          `skill "${write.name}": ${where} holds a secret (${kinds.join(', ')} where it would be replaced); not stored, ` +
            'since every later conversation reads it. Remove the secret (refer to it through an environment variable) and try again.',
        );
    }
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
