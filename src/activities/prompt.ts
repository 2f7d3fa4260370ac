// The per-conversation parts of the system prompt (src/prompt-parts.ts): one local activity at a conversation's
// start. Its result is recorded (a marker), so a replay builds the same prompt whatever the workspace and the
// memory hold by then.
import { Context } from '@temporalio/activity';
import { MemoryClient } from '../memory/client';
import { gatherPromptParts } from '../prompt-parts';
import type { Redactor } from '../security/redact';
import type { PromptParts } from '../workflows/system-prompt';

export interface PromptDeps {
  /** The worker's default workspace (a conversation that names none works there). */
  workspace: string;
  redactor?: Redactor;
}

export function createPromptActivities(deps: PromptDeps) {
  /** `memoryScope` only when the conversation offers the memory tool. */
  async function buildSystemPrompt(args: { workspace?: string; memoryScope?: string }): Promise<PromptParts> {
    const ctx = Context.current();
    const scope = args.memoryScope;
    return gatherPromptParts({
      workspace: args.workspace ?? deps.workspace,
      redactor: deps.redactor,
      ...(scope !== undefined
        ? {
            memory: async () => {
              const view = await new MemoryClient(ctx.client, scope, { taskQueue: ctx.info.taskQueue }).read();
              return view.notes.entries.length || view.user.entries.length ? view : null;
            },
          }
        : {}),
    });
  }
  return { buildSystemPrompt };
}
