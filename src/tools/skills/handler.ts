// The skill tools in the tool activity. Folder skills are read from this worker's disk (the conversation's
// workspace, ~/.hermes/skills, the config's skills.dirs), stored ones from the skills store by `describe`; what the
// model got is the tool result, recorded, so a replay sees the same text whatever the folders hold by then.
import { DEFAULT_SKILLS_STORE, SkillsClient, SkillsError } from '../../skills/client';
import { listSkills, skillSources, SkillPathError, viewSkill, type SkillEntry, type SkillSources } from '../../skills/sources';
import type { SkillWrite } from '../../shared/skills';
import { builtinTool, ToolError, type ToolContext } from '../handler';
import { skillManageSpec, skillsListSpec, skillViewSpec } from './spec';

function storeClient(ctx: ToolContext): SkillsClient | undefined {
  const t = ctx.temporal?.();
  if (!t) return undefined;
  return new SkillsClient(t.client, ctx.skillsStore ?? DEFAULT_SKILLS_STORE, {
    taskQueue: t.taskQueue,
    ...(ctx.redact ? { redactor: { text: ctx.redact } } : {}),
  });
}

/** Where skills are listed from: the folders and, when this worker reaches Temporal, the store. */
function sources(ctx: ToolContext): SkillSources {
  const store = storeClient(ctx);
  return skillSources({ workspace: ctx.workspace, ...(store ? { store } : {}) });
}

/** The folders alone: a person's files, which skill_manage must not shadow nor edit. */
function folderSources(ctx: ToolContext): SkillSources {
  return skillSources({ workspace: ctx.workspace });
}

export function skillLine(s: SkillEntry): string {
  const state = s.invalid
    ? ` — INVALID: ${s.invalid}`
    : s.blocked
      ? ` — [BLOCKED: pattern ${s.blocked.id}]`
      : s.shadowed
        ? ' — shadowed by an earlier one'
        : '';
  const files = s.files.length ? ` (files: ${s.files.slice(0, 10).join(', ')}${s.files.length > 10 ? `, … ${s.files.length - 10} more` : ''})` : '';
  const version = s.version ? ` v${s.version}` : '';
  return `- ${s.name} [${s.source}${version}]: ${s.description ?? ''}${files}${state}`;
}

export const skillsListTool = builtinTool(skillsListSpec, async (_args, ctx) => {
  const { skills, errors } = await listSkills(sources(ctx));
  const lines = skills.map(skillLine);
  const head = skills.length ? `${skills.filter((s) => !s.invalid && !s.shadowed).length} skill(s); load one with skill_view(name):` : 'No skills.';
  return [head, ...lines, ...errors.map((e) => `(note: ${e})`)].join('\n');
});

export const skillViewTool = builtinTool(skillViewSpec, async (args, ctx) => {
  try {
    return await viewSkill(sources(ctx), args.name, args.path);
  } catch (err) {
    if (err instanceof SkillPathError) throw new ToolError(err.message);
    throw err;
  }
});

export const skillManageTool = builtinTool(skillManageSpec, async (args, ctx) => {
  const store = storeClient(ctx);
  if (!store) throw new ToolError('skill_manage is not available on this worker (no Temporal client in the tool activity)');
  // Folder skills are files a person keeps: skill_manage neither shadows nor edits them.
  const { skills } = await listSkills(folderSources(ctx));
  const folder = skills.find((s) => s.name === args.name);
  if (folder)
    throw new ToolError(`a skill "${args.name}" is a folder (${folder.source}: ${folder.where}); skill_manage only changes the skills store`);
  const need = (v: string | undefined, what: string) => {
    if (v === undefined || (what !== 'new_string' && !v)) throw new ToolError(`${args.action} needs \`${what}\``);
    return v;
  };
  const write: SkillWrite =
    args.action === 'create'
      ? { action: 'create', name: args.name, content: need(args.content, 'content') }
      : args.action === 'patch'
        ? {
            action: 'patch',
            name: args.name,
            old_string: need(args.old_string, 'old_string'),
            new_string: need(args.new_string, 'new_string'),
            ...(args.path ? { path: args.path } : {}),
          }
        : args.action === 'write_file'
          ? { action: 'write_file', name: args.name, path: need(args.path, 'path'), content: need(args.content, 'content') }
          : { action: 'delete', name: args.name };
  try {
    // One update id per tool call: a retried activity does not apply the write twice.
    const r = await store.write(write, { updateId: `${ctx.workflowId ?? 'call'}/${ctx.callId}` });
    return `${r.message} Stored in the skills store "${store.store}", which every worker shares; later conversations list it in their system prompt.`;
  } catch (err) {
    if (err instanceof SkillsError) throw new ToolError(err.message);
    throw err;
  }
});

export const skillTools = [skillsListTool, skillViewTool, skillManageTool];
