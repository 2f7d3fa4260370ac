// The per-conversation parts of the system prompt (src/activities/system-prompt-parts.ts): one local activity at a conversation's
// start. Its result is recorded (a marker), so a replay builds the same prompt whatever the workspace and the
// memory hold by then.
import { Context } from '@temporalio/activity';
import { realpath } from 'node:fs/promises';
import { MemoryClient } from '../memory/client';
import { DEFAULT_SKILLS_STORE, SkillsClient } from '../skills/client';
import { listSkills, skillSources } from '../skills/sources';
import { gatherPromptParts } from './system-prompt-parts';
import { isSmallProfile, type ProfileSet } from '../llm/profiles';
import type { Redactor } from '../security/redact';
import type { PromptParts } from '../shared/system-prompt';

export interface PromptDeps {
  /** The worker's default workspace (a conversation that names none works there). */
  workspace: string;
  redactor?: Redactor;
  /** The skills store listed with the folder skills (default "default"). */
  skillsStore?: string;
  /** The worker's model profiles: whether the conversation's is a small model (src/workflows/rules/tool-view.ts). */
  profiles?: ProfileSet;
}

/** `memoryScope` only when the conversation offers the memory tool; `skills` when it offers skill_view. */
export interface PromptRequest {
  workspace?: string;
  memoryScope?: string;
  skills?: boolean;
  skillsStore?: string;
  profile?: string;
}

export function createPromptActivities(deps: PromptDeps) {
  async function buildSystemPrompt(args: PromptRequest): Promise<PromptParts> {
    const ctx = Context.current();
    const scope = args.memoryScope;
    const workspace = args.workspace ?? deps.workspace;
    // Asked here because the workflow cannot read the worker's config; recorded with the parts, so a replay shows
    // the model the same tools. An unknown profile is not small (the model call names it as the error).
    const profile = deps.profiles?.profiles[args.profile ?? deps.profiles.defaultName];
    const small = profile && isSmallProfile(profile) ? { smallModel: true as const } : {};
    const parts = await gatherPromptParts({
      workspace,
      redactor: deps.redactor,
      ...(args.skills
        ? {
            skills: async () =>
              listSkills(
                skillSources({
                  workspace: await realpath(workspace),
                  store: new SkillsClient(ctx.client, args.skillsStore ?? deps.skillsStore ?? DEFAULT_SKILLS_STORE, {
                    taskQueue: ctx.info.taskQueue,
                  }),
                }),
              ),
          }
        : {}),
      ...(scope !== undefined
        ? {
            memory: async () => {
              const view = await new MemoryClient(ctx.client, scope, { taskQueue: ctx.info.taskQueue }).read();
              return view.notes.entries.length || view.user.entries.length ? view : null;
            },
          }
        : {}),
    });
    return { ...parts, ...small };
  }
  return { buildSystemPrompt };
}
