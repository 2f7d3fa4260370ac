// `hermes run --show-prompt`: the system prompt a conversation with these options would start with, without starting
// one. The parts are gathered here by the same function the worker's buildSystemPrompt activity runs (the workspace
// as this machine sees it: the CLI's embedded worker sees the same; a cluster worker may see another) and composed
// by the workflow's own builtSystemPrompt.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { gatherPromptParts } from '../activities/system-prompt-parts';
import { Redactor } from '../security/redact';
import { SkillsClient } from '../skills/client';
import { listSkills, skillSources, skillsStoreName } from '../skills/sources';
import { SKILL_VIEW } from '../tools/skills/spec';
import { resolveTools } from '../tools/registry';
import { memoryScopeOf, type MemoryView } from '../shared/memory';
import { builtSystemPrompt } from '../shared/system-prompt';
import { UsageError, withHermes } from './common';

export interface ShowPromptOptions {
  workspace?: string;
  tools?: string[];
  model?: string;
  memoryScope?: string;
}

export async function showPrompt(o: ShowPromptOptions): Promise<number> {
  const { tools, unknown } = resolveTools(o.tools);
  if (unknown.length) throw new UsageError(`--tools: unknown tools or toolsets: ${unknown.join(', ')}`);
  const memoryScope = tools.includes('memory') ? memoryScopeOf(o) : undefined;
  const workspace = o.workspace ?? path.resolve(process.env.HERMES_WORKSPACE ?? process.cwd());
  const skills = tools.includes(SKILL_VIEW);
  const compose = async (read?: () => Promise<MemoryView | null>, store?: SkillsClient) => {
    const parts = await gatherPromptParts({
      workspace,
      redactor: new Redactor({ env: process.env }),
      ...(read ? { memory: read } : {}),
      ...(skills ? { skills: async () => listSkills(skillSources({ workspace: await realpath(workspace), ...(store ? { store } : {}) })) } : {}),
    });
    process.stdout.write(`${builtSystemPrompt({ tools, ...(memoryScope ? { memoryScope } : {}) }, parts)}\n`);
    if (parts.memoryError) process.stderr.write(`note: memory of scope ${memoryScope} could not be read: ${parts.memoryError}\n`);
    return 0;
  };
  if (memoryScope === undefined && !skills) return compose();
  // Memory and the skills store live in Temporal: reading them needs the server (and, embedded, a worker to answer the query).
  return withHermes(
    (hermes) =>
      compose(
        memoryScope === undefined
          ? undefined
          : async () => {
              const view = await hermes.memory(memoryScope).read();
              return view.notes.entries.length || view.user.entries.length ? view : null;
            },
        new SkillsClient(hermes.client, skillsStoreName(), { taskQueue: hermes.taskQueue }),
      ),
    o.workspace ? { workspace: o.workspace } : {},
  );
}
