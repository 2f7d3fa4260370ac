// Where skills come from, in order of precedence (the first skill of a name wins; later ones are "shadowed"):
// the workspace's `.hermes/skills/`, the user's `~/.hermes/skills/`, the config file's `skills.dirs`, and the skills
// store in Temporal (what skill_manage and `hermes skills add` saved). Folder skills are read from the disk of the
// process asking (a worker, or the CLI); the store is the same for every worker. Node side: the tools, the system
// prompt's parts and the CLI use it; what a conversation saw is recorded (a tool result, the prompt's marker).
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readConfig } from '../config/load';
import { scanForInjection, type InjectionFinding } from '../shared/injection';
import { blockedSkillLine, normalizeSkillPath, parseSkillMd, scanSkillTexts, SKILL_FILE } from '../shared/skill-format';
import type { SkillsState } from '../shared/skills';
import { resolveInWorkspace } from '../tools/workspace';
import type { Redactor } from '../security/redact';
import type { PromptSkills } from '../shared/system-prompt';
import type { SkillsClient } from './client';

export type SkillSource = 'workspace' | 'user' | 'config' | 'store';

export interface SkillSources {
  /** The conversation's workspace: its `.hermes/skills/` (folders must stay inside the workspace). */
  workspace?: string;
  /** Default `~/.hermes/skills`. */
  userDir?: string;
  /** The config file's `skills.dirs` (absolute). */
  configDirs?: string[];
  store?: Pick<SkillsClient, 'read' | 'store'>;
}

export interface SkillEntry {
  name: string;
  source: SkillSource;
  /** Where it is: the folder's real path, or `store <name>`. */
  where: string;
  description?: string;
  /** Files besides SKILL.md (relative paths). */
  files: string[];
  version?: number;
  /** Its text matched an injection pattern: listed as [BLOCKED …], never loaded. */
  blocked?: InjectionFinding & { file?: string };
  /** Not a valid skill: why (listed by skills_list and `hermes skills list`, left out of the prompt). */
  invalid?: string;
  /** A skill of the same name earlier in the order hides this one. */
  shadowed?: boolean;
}

export interface SkillListing {
  skills: SkillEntry[];
  /** Sources that could not be read (the rest is listed). */
  errors: string[];
}

/** SKILL.md or a file of a skill larger than this is not read. */
const MAX_FILE_BYTES = 256 * 1024;
/** Files listed per folder skill (walked at most 4 levels deep). */
const MAX_LISTED_FILES = 100;

export function userSkillsDir(): string {
  return path.join(os.homedir(), '.hermes', 'skills');
}

/** The config file's `skills.dirs`, relative to the config file; [] without one. */
export function configSkillDirs(): string[] {
  const loaded = readConfig();
  const dirs = loaded?.config.skills?.dirs ?? [];
  return dirs.map((d) => path.resolve(path.dirname(loaded!.file), d.replace(/^~(?=$|\/)/, os.homedir())));
}

/** The sources of a process: the workspace given, the user's folder, the config's folders, and the store given. */
export function skillSources(o: { workspace?: string; store?: SkillSources['store'] }): SkillSources {
  return { ...o, userDir: userSkillsDir(), configDirs: configSkillDirs() };
}

/** Every skill of every source, in order of precedence. */
export async function listSkills(src: SkillSources): Promise<SkillListing> {
  const errors: string[] = [];
  const folders: Array<{ source: SkillSource; dir: string; root?: string }> = [
    ...(src.workspace ? [{ source: 'workspace' as const, dir: path.join(src.workspace, '.hermes', 'skills'), root: src.workspace }] : []),
    ...(src.userDir ? [{ source: 'user' as const, dir: src.userDir }] : []),
    ...(src.configDirs ?? []).map((dir) => ({ source: 'config' as const, dir })),
  ];
  const found: SkillEntry[] = [];
  for (const f of folders) found.push(...(await folderSkills(f.source, f.dir, f.root, errors)));
  if (src.store) {
    try {
      found.push(...storeEntries(src.store.store, await src.store.read()));
    } catch (err) {
      errors.push(`the skills store "${src.store.store}" could not be read: ${(err as Error).message}`);
    }
  }
  const seen = new Set<string>();
  for (const s of found) {
    if (seen.has(s.name)) s.shadowed = true;
    else if (!s.invalid) seen.add(s.name);
  }
  return { skills: found, errors };
}

function storeEntries(store: string, state: SkillsState): SkillEntry[] {
  return Object.keys(state)
    .sort()
    .map((name) => {
      const s = state[name]!;
      const entry: SkillEntry = {
        name,
        source: 'store',
        where: `store ${store}`,
        files: Object.keys(s.files)
          .filter((f) => f !== SKILL_FILE)
          .sort(),
        version: s.version,
      };
      return withDoc(entry, s.files[SKILL_FILE] ?? '', name, s.files);
    });
}

/** Fills in description, blocked or invalid from SKILL.md's text (and, for the scan, the other texts at hand). */
function withDoc(e: SkillEntry, text: string, folder: string | undefined, texts: Record<string, string> = { [SKILL_FILE]: text }): SkillEntry {
  try {
    e.description = parseSkillMd(text, folder).description;
  } catch (err) {
    e.invalid = (err as Error).message;
    return e;
  }
  const found = scanSkillTexts(texts);
  if (found) e.blocked = found;
  return e;
}

async function folderSkills(source: SkillSource, dir: string, root: string | undefined, errors: string[]): Promise<SkillEntry[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => !n.startsWith('.')).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') errors.push(`${dir}: ${(err as Error).message}`);
    return [];
  }
  const out: SkillEntry[] = [];
  for (const name of names) {
    let real: string;
    try {
      real = root ? await resolveInWorkspace(root, path.join(dir, name)) : await realpath(path.join(dir, name));
      if (!(await stat(real)).isDirectory()) continue;
    } catch (err) {
      out.push({ name, source, where: path.join(dir, name), files: [], invalid: (err as Error).message });
      continue;
    }
    const entry: SkillEntry = { name, source, where: real, files: [] };
    let text: string;
    try {
      text = await readInside(real, SKILL_FILE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // a folder without SKILL.md is not a skill
      out.push({ ...entry, invalid: (err as Error).message });
      continue;
    }
    entry.files = await listFiles(real);
    out.push(withDoc(entry, text, name));
  }
  return out;
}

/** A file of a skill folder by relative path: its real path must stay inside the folder's real path. */
async function readInside(realDir: string, rel: string): Promise<string> {
  const real = await realpath(path.join(realDir, rel));
  if (!inside(realDir, real)) throw new SkillPathError(`"${rel}" leads outside the skill folder (to ${real}): refused`);
  const st = await stat(real);
  if (!st.isFile()) throw new SkillPathError(`"${rel}" is not a regular file`);
  if (st.size > MAX_FILE_BYTES) throw new SkillPathError(`"${rel}" has ${st.size} bytes, more than the ${MAX_FILE_BYTES} read from a skill`);
  const buf = await readFile(real);
  if (buf.subarray(0, 8192).includes(0)) throw new SkillPathError(`"${rel}" is a binary file`);
  return buf.toString('utf8');
}

export class SkillPathError extends Error {
  override name = 'SkillPathError';
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

async function listFiles(realDir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > 4 || out.length >= MAX_LISTED_FILES) return;
    let entries;
    try {
      entries = await readdir(path.join(realDir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.') || out.length >= MAX_LISTED_FILES) continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(p, depth + 1);
      else if (p !== SKILL_FILE) out.push(p);
    }
  };
  await walk('', 0);
  return out;
}

/** The text skill_view returns: a skill's instructions, or one file of it. Throws SkillPathError for a refusal. */
export async function viewSkill(src: SkillSources, name: string, file?: string): Promise<string> {
  const { skills, errors } = await listSkills(src);
  const s = skills.find((e) => e.name === name && !e.shadowed && !e.invalid) ?? skills.find((e) => e.name === name);
  if (!s) {
    const known = skills.filter((e) => !e.invalid && !e.shadowed).map((e) => e.name);
    const also = errors.length ? ` (${errors.join('; ')})` : '';
    throw new SkillPathError(`no skill named "${name}"; skills: ${known.length ? known.join(', ') : 'none'}${also}`);
  }
  if (s.invalid) throw new SkillPathError(`the skill "${name}" (${s.where}) is not valid: ${s.invalid}`);
  if (s.blocked) return blockedSkillLine(name, s.blocked);
  const rel = file === undefined ? SKILL_FILE : normalizeSkillPath(file);
  if (!rel) throw new SkillPathError(`"${file}" is not a path inside the skill folder: refused`);
  const text = await skillFileText(src, s, rel);
  if (rel !== SKILL_FILE) {
    const found = scanForInjection(text);
    return found ? blockedSkillLine(name, { ...found, file: rel }) : text;
  }
  const doc = parseSkillMd(text);
  const files = s.files.length ? `\n\nFiles of this skill (read one with skill_view(name, path)): ${s.files.join(', ')}` : '';
  return `Skill "${name}" (${s.source}: ${s.where}${s.version ? `, version ${s.version}` : ''}): ${doc.description}\n\n${doc.body}${files}`;
}

async function skillFileText(src: SkillSources, s: SkillEntry, rel: string): Promise<string> {
  if (s.source === 'store') {
    const t = (await src.store!.read())[s.name]?.files[rel];
    if (t === undefined) throw new SkillPathError(`the skill "${s.name}" has no file ${rel} (files: ${[SKILL_FILE, ...s.files].join(', ')})`);
    return t;
  }
  try {
    return await readInside(s.where, rel);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new SkillPathError(`the skill "${s.name}" has no file ${rel} (files: ${[SKILL_FILE, ...s.files].join(', ')})`);
    throw err;
  }
}

export const PROMPT_SKILLS_MAX = 40;
export const PROMPT_SKILL_DESCRIPTION_CHARS = 200;
export const PROMPT_SKILLS_CHARS = 4_000;

/** What the system prompt lists (bounded: at most PROMPT_SKILLS_MAX skills, descriptions cut, PROMPT_SKILLS_CHARS in all), redacted. */
export function promptSkills(listing: SkillListing, redactor?: Pick<Redactor, 'text'>): PromptSkills {
  const usable = listing.skills.filter((s) => !s.invalid && !s.shadowed);
  const entries: PromptSkills['entries'] = [];
  let chars = 0;
  for (const s of usable) {
    if (entries.length >= PROMPT_SKILLS_MAX) break;
    const d = redactor ? redactor.text(s.description ?? '') : (s.description ?? '');
    const description = d.length > PROMPT_SKILL_DESCRIPTION_CHARS ? `${d.slice(0, PROMPT_SKILL_DESCRIPTION_CHARS - 1).trimEnd()}…` : d;
    const cost = s.name.length + (s.blocked ? 200 : description.length) + 4;
    if (chars + cost > PROMPT_SKILLS_CHARS) break;
    chars += cost;
    entries.push(s.blocked ? { name: s.name, blocked: { id: s.blocked.id, reason: s.blocked.reason } } : { name: s.name, description });
  }
  const more = usable.length - entries.length;
  return { entries, more, ...(listing.errors.length ? { error: listing.errors.join('; ') } : {}) };
}

/** The skills store of this process: HERMES_SKILLS_STORE, else the config's skills.store, else "default". */
export function skillsStoreName(env: NodeJS.ProcessEnv = process.env): string {
  return env.HERMES_SKILLS_STORE?.trim() || readConfig(env)?.config.skills?.store || 'default';
}
