// Skills (agentskills.io SKILL.md folders), loaded by progressive disclosure: the system prompt lists names and
// descriptions, skills_list and skill_view load the rest on demand, skill_manage saves what the agent learnt into
// the skills store every worker shares (src/workflows/skills.ts). Workflow-safe: specs only (handler.ts beside it).
import { z } from 'zod';
import { scanForInjection } from '../../shared/injection';
import { SKILL_CHARS_MAX } from '../../shared/skills';
import { defineTool } from '../spec';

export const SKILLS_LIST = 'skills_list';
export const SKILL_VIEW = 'skill_view';
export const SKILL_MANAGE = 'skill_manage';

export const skillsListSpec = defineTool({
  name: SKILLS_LIST,
  description:
    'Lists the available skills (instructions for particular tasks): name, description, where it comes from and its files; also invalid or blocked ones and why.',
  schema: () => z.object({}),
  concurrency: 'read',
  idempotent: true,
});

export const skillViewSpec = defineTool({
  name: SKILL_VIEW,
  description: "Loads a skill: returns its instructions (SKILL.md's body) and the list of its files, or, with `path`, one of those files. Read-only.",
  schema: () =>
    z.object({
      name: z.string().min(1).max(64).describe('The skill name, as listed'),
      path: z
        .string()
        .max(500)
        .optional()
        .describe('A file of the skill, relative to its folder (e.g. references/api.md); omit for the instructions'),
    }),
  concurrency: 'read',
  idempotent: true,
});

export const skillManageSpec = defineTool({
  name: SKILL_MANAGE,
  description:
    'Saves what you learnt as a skill later conversations can use, shared by every worker: create (name, content: a whole SKILL.md with ' +
    '`name` and `description` front matter), patch (old_string → new_string in SKILL.md or `path`), write_file (path, content) or delete. Returns the outcome.',
  schema: () =>
    z.object({
      action: z.enum(['create', 'patch', 'write_file', 'delete']).describe('What to do'),
      name: z.string().min(1).max(64).describe('The skill name: lowercase letters, digits and hyphens'),
      // The store's size limit, checked here too: a person should not be asked to approve a write it will refuse.
      content: z.string().max(SKILL_CHARS_MAX).optional().describe('create: the whole SKILL.md; write_file: the file text'),
      old_string: z.string().max(SKILL_CHARS_MAX).optional().describe('patch: text that occurs exactly once'),
      new_string: z.string().max(SKILL_CHARS_MAX).optional().describe('patch: its replacement'),
      path: z.string().optional().describe('patch, write_file: a file of the skill (default SKILL.md)'),
    }),
  concurrency: 'write',
  writesVerbatim: true,
  // A retried write carries the same update id, so the store applies it once.
  idempotent: true,
  // Every later conversation sees what it saves: a person approves it first (approvalMode "allow" skips that).
  // Text the store would refuse for an injection pattern is refused before anyone is asked: a person should not
  // approve a write that cannot happen (the store scans the whole skill again when it applies the write).
  approval: (args) => {
    for (const text of [args.content, args.new_string]) {
      const found = typeof text === 'string' ? scanForInjection(text) : undefined;
      if (found)
        return {
          verdict: 'refuse',
          reason: `the skill text matches the prompt-injection pattern "${found.id}" (${found.reason}); nothing was saved`,
          pattern: 'skill_manage',
        };
    }
    return {
      verdict: 'approval',
      reason: `${String(args.action)} skill "${String(args.name)}": saved for every later conversation`,
      pattern: 'skill_manage',
    };
  },
});

export const SKILL_TOOL_SPECS = [skillsListSpec, skillViewSpec, skillManageSpec];
export const SKILL_TOOLS = SKILL_TOOL_SPECS.map((s) => s.name);
