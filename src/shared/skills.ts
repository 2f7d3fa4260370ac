// The skills store, the pure part (workflow-safe): skills the agent saves with skill_manage (or `hermes skills add`)
// live in a long-lived workflow `hermes-skills-<store>` (src/workflows/skills.ts), one memo field per skill, so every
// worker of the cluster reads the same skills with `describe` — no worker has to answer, also right after the one
// that wrote them died. Writes are updates; every check is in the update validator (this file's applySkillWrite).
import { z } from 'zod';
import { credentialKinds } from './credentials';
import { isSkillName, normalizeSkillPath, parseSkillMd, scanSkillTexts, SKILL_FILE, SKILL_NAME_RULE } from './skill-format';

/** Characters of one stored skill (SKILL.md and its files together). */
export const SKILL_CHARS_MAX = 64_000;
/** Files of one stored skill besides SKILL.md. */
export const SKILL_FILES_MAX = 20;
/** Skills one store holds, and their characters together: the memo (and a continue-as-new input) stays far below 2 MiB. */
export const STORE_SKILLS_MAX = 200;
export const STORE_CHARS_MAX = 1_000_000;

export const SKILLS_STORE_RULE = 'a skills store name is 1-100 letters, digits, . _ -, starting with a letter or digit';
export function isSkillsStore(s: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(s);
}

export function skillsWorkflowId(store: string): string {
  return `hermes-skills-${store}`;
}

/** One memo field per skill: `skill.<name>`. */
export const SKILL_MEMO_PREFIX = 'skill.';

export interface StoredSkill {
  /** SKILL.md and the files beside it, by path relative to the skill folder. */
  files: Record<string, string>;
  /** 1 when created, +1 per change. */
  version: number;
}
export type SkillsState = Record<string, StoredSkill>;

export type SkillWrite =
  | { action: 'create'; name: string; content: string; files?: Record<string, string> }
  | { action: 'patch'; name: string; old_string: string; new_string: string; path?: string }
  | { action: 'write_file'; name: string; path: string; content: string }
  | { action: 'delete'; name: string };

export interface SkillWriteResult {
  name: string;
  /** The skill's version after the write (0: deleted). */
  version: number;
  message: string;
}

const text = (max: number) => z.string().max(max);
export function skillWriteSchema() {
  const name = () => z.string().refine(isSkillName, SKILL_NAME_RULE);
  return z.discriminatedUnion('action', [
    z.strictObject({
      action: z.literal('create'),
      name: name(),
      content: text(SKILL_CHARS_MAX),
      files: z.record(z.string(), text(SKILL_CHARS_MAX)).optional(),
    }),
    z.strictObject({
      action: z.literal('patch'),
      name: name(),
      old_string: text(SKILL_CHARS_MAX).min(1),
      new_string: text(SKILL_CHARS_MAX),
      path: z.string().optional(),
    }),
    z.strictObject({ action: z.literal('write_file'), name: name(), path: z.string(), content: text(SKILL_CHARS_MAX) }),
    z.strictObject({ action: z.literal('delete'), name: name() }),
  ]);
}

export function skillsInputSchema() {
  return z.strictObject({
    store: z.string().refine(isSkillsStore, SKILLS_STORE_RULE),
    /** Continue-as-new after this many accepted writes in one run (the server's suggestion also triggers it). */
    writesPerRun: z.number().int().min(1).max(10_000).optional(),
  });
}

/** A write the store refuses; the message says why, worded for the model that sent it. */
export class SkillWriteError extends Error {
  override name = 'SkillWriteError';
}

const size = (files: Record<string, string>) => Object.values(files).reduce((n, t) => n + t.length, 0);

/**
 * Applies a write to a copy of the state, or throws SkillWriteError: a SKILL.md that does not follow the format
 * (or renames the skill), a path outside the skill folder, text matching an injection pattern or holding a
 * credential, a create of a name that exists, a patch whose old text is not found exactly once, the size limits.
 */
export function applySkillWrite(state: SkillsState, w: SkillWrite): { state: SkillsState; result: SkillWriteResult } {
  const existing = state[w.name];
  if (w.action === 'delete') {
    if (!existing) throw new SkillWriteError(`no skill "${w.name}" in the store: nothing deleted`);
    const { [w.name]: _gone, ...rest } = state;
    return { state: rest, result: { name: w.name, version: 0, message: `Deleted skill "${w.name}".` } };
  }
  let files: Record<string, string>;
  if (w.action === 'create') {
    if (existing) throw new SkillWriteError(`a skill "${w.name}" exists already (version ${existing.version}): patch it, or delete it first`);
    files = { [SKILL_FILE]: w.content };
    for (const [p, t] of Object.entries(w.files ?? {})) files[checkedPath(p)] = t;
  } else {
    if (!existing) throw new SkillWriteError(`no skill "${w.name}" in the store: create it first`);
    const file = checkedPath(w.path ?? SKILL_FILE);
    files = { ...existing.files };
    if (w.action === 'write_file') files[file] = w.content;
    else {
      const old = files[file];
      if (old === undefined) throw new SkillWriteError(`skill "${w.name}" has no file ${file} (files: ${Object.keys(files).join(', ')})`);
      const hits = old.split(w.old_string).length - 1;
      if (hits !== 1)
        throw new SkillWriteError(`old_string occurs ${hits} times in ${file} of skill "${w.name}"; it must occur exactly once (give more context)`);
      files[file] = old.replace(w.old_string, () => w.new_string);
    }
  }
  try {
    parseSkillMd(files[SKILL_FILE] ?? '', w.name);
  } catch (err) {
    throw new SkillWriteError(`refused: ${(err as Error).message}`);
  }
  if (Object.keys(files).length - 1 > SKILL_FILES_MAX)
    throw new SkillWriteError(`refused: a skill holds at most ${SKILL_FILES_MAX} files besides ${SKILL_FILE}`);
  const chars = size(files);
  if (chars > SKILL_CHARS_MAX) throw new SkillWriteError(`refused: the skill would hold ${chars} characters, more than ${SKILL_CHARS_MAX}`);
  const found = scanSkillTexts(files);
  if (found) throw new SkillWriteError(`refused: ${found.file} was not saved because ${found.reason} (pattern ${found.id})`);
  const kinds = [...new Set(Object.values(files).flatMap((t) => credentialKinds(t)))];
  if (kinds.length)
    throw new SkillWriteError(`refused: the skill holds what looks like a credential (${kinds.join(', ')}); name where the secret is kept instead`);
  const next = { ...state, [w.name]: { files, version: (existing?.version ?? 0) + 1 } };
  if (!existing && Object.keys(next).length > STORE_SKILLS_MAX)
    throw new SkillWriteError(`refused: the store holds ${STORE_SKILLS_MAX} skills, its limit`);
  const total = Object.values(next).reduce((n, s) => n + size(s.files), 0);
  if (total > STORE_CHARS_MAX) throw new SkillWriteError(`refused: the store would hold ${total} characters, more than ${STORE_CHARS_MAX}`);
  const verb =
    w.action === 'create'
      ? 'Created'
      : w.action === 'patch'
        ? `Patched ${w.path ? checkedPath(w.path) : SKILL_FILE} of`
        : `Wrote ${checkedPath(w.path)} of`;
  const version = next[w.name]!.version;
  return { state: next, result: { name: w.name, version, message: `${verb} skill "${w.name}" (version ${version}).` } };
}

function checkedPath(p: string): string {
  const n = normalizeSkillPath(p);
  if (!n) throw new SkillWriteError(`refused: "${p}" is not a path inside the skill folder`);
  return n;
}

/** The store's skills from its memo (what `describe` returns): the fields that look like stored skills. */
export function skillsFromMemo(memo: Record<string, unknown> | undefined): SkillsState {
  const out: SkillsState = {};
  for (const [k, v] of Object.entries(memo ?? {})) {
    if (!k.startsWith(SKILL_MEMO_PREFIX) || !v || typeof v !== 'object') continue;
    const s = v as Partial<StoredSkill>;
    if (s.files && typeof s.files === 'object' && typeof s.version === 'number')
      out[k.slice(SKILL_MEMO_PREFIX.length)] = { files: s.files, version: s.version };
  }
  return out;
}
