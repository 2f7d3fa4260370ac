// `hermes skills list | show NAME [--path P] | add DIR [--replace]`: the skills conversations on this machine's
// workspace would see (the workspace's .hermes/skills, ~/.hermes/skills, the config's skills.dirs) and the skills
// store in Temporal, which `add` uploads a folder to, so every worker of the cluster has it.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SkillsClient, SkillsError } from '../skills/client';
import { listSkills, skillSources, skillsStoreName, SkillPathError, viewSkill } from '../skills/sources';
import { parseSkillMd, SKILL_FILE } from '../shared/skill-format';
import { SKILL_FILES_MAX } from '../shared/skills';
import { skillLine } from '../tools/skills/handler';
import { UsageError, withHermes } from './common';

const SUBCOMMANDS = ['list', 'show', 'add'];

export async function skills(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || !SUBCOMMANDS.includes(sub))
    throw new UsageError(
      sub === undefined ? 'hermes skills needs a subcommand: list, show, add' : `hermes skills: unknown subcommand "${sub}" (list, show, add)`,
    );
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      path: { type: 'string' },
      replace: { type: 'boolean', default: false },
      store: { type: 'string' },
      workspace: { type: 'string' },
    },
  });
  const workspace = path.resolve(values.workspace ?? process.env.HERMES_WORKSPACE ?? process.cwd());
  const storeName = values.store ?? skillsStoreName();
  if (sub !== 'list' && positionals.length !== 1) throw new UsageError(`hermes skills ${sub} needs one ${sub === 'add' ? 'DIR' : 'NAME'}`);
  // Read before connecting: a folder that is not a skill is a usage error, whatever the server does.
  const upload = sub === 'add' ? await readSkillFolder(positionals[0]!) : undefined;
  return withHermes(async (hermes) => {
    let store: SkillsClient;
    try {
      store = new SkillsClient(hermes.client, storeName, { taskQueue: hermes.taskQueue });
    } catch (err) {
      throw new UsageError(`--store: ${(err as Error).message}`);
    }
    const src = skillSources({ workspace, store });
    if (sub === 'list') {
      const listing = await listSkills(src);
      if (values.json) process.stdout.write(`${JSON.stringify(listing, null, 2)}\n`);
      else {
        process.stdout.write(listing.skills.length ? `${listing.skills.map(skillLine).join('\n')}\n` : 'no skills\n');
        for (const e of listing.errors) process.stderr.write(`note: ${e}\n`);
      }
      return 0;
    }
    if (sub === 'show') {
      try {
        process.stdout.write(`${await viewSkill(src, positionals[0]!, values.path)}\n`);
        return 0;
      } catch (err) {
        if (!(err instanceof SkillPathError)) throw err;
        process.stderr.write(`hermes skills show: ${err.message}\n`);
        return 1;
      }
    }
    const { name, files } = upload!;
    const { skills: all } = await listSkills(skillSources({ workspace }));
    const folder = all.find((s) => s.name === name && s.where !== path.resolve(positionals[0]!));
    if (folder) process.stderr.write(`note: a folder skill "${name}" (${folder.where}) comes first and hides the stored one\n`);
    try {
      if (values.replace && (await store.read())[name]) await store.write({ action: 'delete', name });
      const { [SKILL_FILE]: content, ...rest } = files;
      const r = await store.write({ action: 'create', name, content: content!, files: rest });
      process.stdout.write(`${r.message} Stored in the skills store "${store.store}" (workflow ${store.workflowId}).\n`);
      return 0;
    } catch (err) {
      if (!(err instanceof SkillsError)) throw err;
      process.stderr.write(`hermes skills add: ${err.message}${/exists already/.test(err.message) ? ' (--replace replaces it)' : ''}\n`);
      return 1;
    }
  });
}

/** A skill folder's SKILL.md and text files (dot-files skipped), checked against the format. */
async function readSkillFolder(dir: string): Promise<{ name: string; files: Record<string, string> }> {
  const root = path.resolve(dir);
  const files: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    for (const e of await readdir(path.join(root, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) {
        const buf = await readFile(path.join(root, p));
        if (buf.subarray(0, 8192).includes(0)) throw new UsageError(`${path.join(dir, p)}: a binary file; the skills store holds text files only`);
        files[p] = buf.toString('utf8');
      }
    }
  };
  try {
    if (!(await stat(root)).isDirectory()) throw new UsageError(`${dir}: not a directory`);
    await walk('');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${dir}: ${(err as Error).message}`);
  }
  if (files[SKILL_FILE] === undefined) throw new UsageError(`${dir}: no ${SKILL_FILE} in it`);
  if (Object.keys(files).length - 1 > SKILL_FILES_MAX) throw new UsageError(`${dir}: more than ${SKILL_FILES_MAX} files besides ${SKILL_FILE}`);
  try {
    return { name: parseSkillMd(files[SKILL_FILE], path.basename(root)).name, files };
  } catch (err) {
    throw new UsageError(`${path.join(dir, SKILL_FILE)}: ${(err as Error).message}`);
  }
}
