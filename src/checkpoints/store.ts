// The checkpoint store: one shadow git repository per workspace under `<dir>/<hash of the workspace's real path>`,
// outside the workspace. A snapshot is `git add -A` + `write-tree` into it: the workspace's .gitignore applies,
// its .git is never touched (git skips `.git` at every level), files over `maxFileBytes` and the tools' saved outputs
// are left out. Only changed files are hashed again (the index's stat cache), so a later snapshot costs little.
//
// Safe under concurrency without a lock: every snapshot works on its own copy of the shadow index (GIT_INDEX_FILE)
// and renames it over the shared one when done (last one wins; each is a valid cache of some moment), git writes
// objects atomically, and refs change by `update-ref` with git's own ref locks. A step's "before" ref is created only
// if absent, so a retried attempt — or a second file-changing call of the same step — reuses the first snapshot.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OUTPUT_DIR } from '../tools/output';
import { git, nulSplit, type GitTarget } from './git';

export interface CheckpointSettings {
  /** Where the shadow repositories live (default `<HERMES_HOME>/checkpoints`). */
  dir: string;
  /** Files larger than this many bytes are left out of snapshots (default 1 MiB). */
  maxFileBytes: number;
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
const ZERO = '0'.repeat(40);
/**
 * Skipped files listed in a checkpoint's message (the count is always there). Rollback needs the list to know that a
 * file absent from the tree existed (too large to snapshot): past this many, a path absent from the tree is unknown.
 */
const SKIPPED_LISTED = 10_000;

/** Which conversation step a checkpoint belongs to: refs/hermes/<conversation hash>/<step>/<run>/{before,after}. */
export interface CheckpointKey {
  workspace: string;
  conversation: string;
  run: string;
  step: number;
}

export interface Snapshot {
  tree: string;
  /** Paths (relative, `/`-separated) left out because they are larger than maxFileBytes. */
  skipped: string[];
  /** The same files with their size and mtime (ms, floored), so a rollback can tell whether one changed since. */
  large: LargeFile[];
}

export interface LargeFile {
  path: string;
  size?: number;
  mtimeMs?: number;
}

/** The files a checkpoint left out as too large; `complete` false when the message lists only some of them. */
export interface SkippedFiles {
  files: Map<string, LargeFile>;
  complete: boolean;
}

/** One step's checkpoints: the workspace before its first file-changing call, and after its last one. */
export interface StepCheckpoint {
  step: number;
  run: string;
  before: string;
  after?: string;
  /** Unix seconds the before snapshot was made. */
  at: number;
}

export interface ConversationCheckpoints {
  workspace: string;
  target: GitTarget;
  steps: StepCheckpoint[];
}

export const hashOf = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);

export class CheckpointStore {
  constructor(readonly settings: CheckpointSettings) {}

  target(workspace: string): GitTarget {
    return { gitDir: path.join(this.settings.dir, hashOf(workspace, 16)), workTree: workspace };
  }

  /** The state of `workspace` now, as a tree in its shadow repository (nothing points at it yet). */
  async snapshot(workspace: string, signal?: AbortSignal): Promise<Snapshot> {
    const t = await this.#repo(workspace);
    const shared = path.join(t.gitDir, 'index');
    const own = `${shared}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await copyIndex(shared, own);
    const g: GitTarget = { ...t, indexFile: own };
    try {
      // Only new and modified files can have grown past the limit since the index last saw them.
      const listed = await git(g, ['ls-files', '-z', '--others', '--modified', '--exclude-standard'], { signal });
      const large: LargeFile[] = [];
      for (const rel of new Set(nulSplit(listed.stdout))) {
        const st = await lstat(path.join(workspace, rel)).catch(() => undefined);
        if (st?.isFile() && st.size > this.settings.maxFileBytes) large.push({ path: rel, size: st.size, mtimeMs: Math.floor(st.mtimeMs) });
      }
      const skipped = large.map((f) => f.path);
      const excluded = [OUTPUT_DIR, ...this.#insideWorkspace(workspace), ...skipped];
      const specs = ['.', ...excluded.map((p) => `:(exclude,literal)${p}`)];
      await git(g, ['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], {
        input: specs.join('\0'),
        signal,
        okCodes: [1], // --ignore-errors: an unreadable file is left out, the rest is added
      });
      // A file tracked while it was small stays in the index otherwise, with its old content.
      if (skipped.length)
        await git(g, ['--literal-pathspecs', 'rm', '-q', '--cached', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], {
          input: skipped.join('\0'),
          signal,
        });
      const tree = (await git(g, ['write-tree'], { signal })).stdout.trim();
      await rename(own, shared);
      return { tree, skipped, large };
    } finally {
      await rm(own, { force: true });
    }
  }

  /** The step's before-checkpoint: made by its first file-changing call, reused by the others and by retries. */
  async before(key: CheckpointKey, signal?: AbortSignal): Promise<string> {
    const t = this.target(key.workspace);
    const ref = refName(key, 'before');
    const existing = await readRef(t, ref);
    if (existing) return existing;
    const commit = await this.#commit(key, signal);
    // Created only if absent. When another attempt of this step got there first, its snapshot is the one from
    // before the step; while it still holds git's lock on the ref, neither is there yet: try again.
    return withRefRetries(async () => {
      try {
        await git(t, ['update-ref', ref, commit, ZERO]);
        return commit;
      } catch (err) {
        const won = await resolveRef(t, ref);
        if (won) return won;
        throw err;
      }
    });
  }

  /**
   * The step's after-checkpoint: moved on by every file-changing call of the step (what the agent left). A tree, not
   * a commit: nothing reads a date or message of it, and commit-tree would be one more git process per call.
   */
  async after(key: CheckpointKey, signal?: AbortSignal): Promise<string> {
    const { tree } = await this.snapshot(key.workspace, signal);
    await withRefRetries(() => git(this.target(key.workspace), ['update-ref', refName(key, 'after'), tree]));
    return tree;
  }

  /** Every checkpoint of a conversation, in whichever shadow repository holds them (the newest, if several do). */
  async list(conversation: string): Promise<ConversationCheckpoints | undefined> {
    const dirs = await readdir(this.settings.dir).catch(() => [] as string[]);
    let best: ConversationCheckpoints | undefined;
    for (const d of dirs) {
      const gitDir = path.join(this.settings.dir, d);
      const workspace = await readFile(path.join(gitDir, WORKSPACE_FILE), 'utf8').catch(() => undefined);
      if (workspace === undefined) continue;
      const target = { gitDir, workTree: workspace };
      const steps = await listSteps(target, conversation);
      if (!steps.length) continue;
      const latest = (s: StepCheckpoint[]) => Math.max(...s.map((c) => c.at));
      if (!best || latest(steps) > latest(best.steps)) best = { workspace, target, steps };
    }
    return best;
  }

  async #commit(key: CheckpointKey, signal?: AbortSignal): Promise<string> {
    const snap = await this.snapshot(key.workspace, signal);
    const meta = {
      hermes: 'checkpoint',
      conversation: key.conversation,
      run: key.run,
      step: key.step,
      workspace: key.workspace,
      skipped: snap.large.slice(0, SKIPPED_LISTED).map((f) => [f.path, f.size, f.mtimeMs]),
      skippedCount: snap.large.length,
    };
    const message = `before step ${key.step} of ${key.conversation}\n\n${JSON.stringify(meta)}\n`;
    return (await git(this.target(key.workspace), ['commit-tree', snap.tree, '-F', '-'], { input: message, signal })).stdout.trim();
  }

  /** The files a before-checkpoint left out as too large, from its message (older checkpoints list names only). */
  async skippedAt(t: GitTarget, commit: string): Promise<SkippedFiles> {
    const body = (await git(t, ['cat-file', 'commit', commit])).stdout;
    const line = body.split('\n').find((l) => l.startsWith('{"hermes":"checkpoint"'));
    const files = new Map<string, LargeFile>();
    if (!line) return { files, complete: false };
    let meta: { skipped?: unknown; skippedCount?: unknown };
    try {
      meta = JSON.parse(line) as typeof meta;
    } catch {
      return { files, complete: false };
    }
    for (const e of Array.isArray(meta.skipped) ? (meta.skipped as unknown[]) : []) {
      if (typeof e === 'string') files.set(e, { path: e });
      else if (Array.isArray(e) && typeof e[0] === 'string')
        files.set(e[0], {
          path: e[0],
          ...(typeof e[1] === 'number' ? { size: e[1] } : {}),
          ...(typeof e[2] === 'number' ? { mtimeMs: e[2] } : {}),
        });
    }
    return { files, complete: typeof meta.skippedCount === 'number' && files.size >= meta.skippedCount };
  }

  /** The store itself, when it lies inside the workspace (HERMES_HOME under the project): never snapshotted. */
  #insideWorkspace(workspace: string): string[] {
    const rel = path.relative(workspace, this.settings.dir);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? [rel.split(path.sep).join('/')] : [];
  }

  /** Creates the shadow repository on first use (into a fresh directory renamed into place: two workers may race). */
  async #repo(workspace: string): Promise<GitTarget> {
    const t = this.target(workspace);
    if (existsSync(path.join(t.gitDir, 'HEAD'))) return t;
    await mkdir(this.settings.dir, { recursive: true, mode: 0o700 });
    const fresh = `${t.gitDir}.init-${process.pid}-${randomBytes(4).toString('hex')}`;
    const f: GitTarget = { gitDir: fresh, workTree: workspace };
    try {
      await git(f, ['init', '-q']);
      for (const [k, v] of CONFIG) await git(f, ['config', k, v]);
      await writeFile(path.join(fresh, WORKSPACE_FILE), workspace);
      await rename(fresh, t.gitDir).catch((err: NodeJS.ErrnoException) => {
        if (!existsSync(path.join(t.gitDir, 'HEAD'))) throw err;
      });
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
    return t;
  }
}

const WORKSPACE_FILE = 'hermes-workspace';
const CONFIG: Array<[string, string]> = [
  ['core.bare', 'false'],
  ['core.autocrlf', 'false'],
  ['core.untrackedCache', 'true'],
  ['core.quotePath', 'false'],
  ['gc.auto', '0'],
];

/** git fails an update of a ref another process holds locked (`cannot lock ref`) at once: a few tries, then the error. */
async function withRefRetries<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 10 * attempt));
    }
  }
}

function refName(key: CheckpointKey, kind: 'before' | 'after'): string {
  return `refs/hermes/${hashOf(key.conversation, 24)}/${key.step}/${key.run}/${kind}`;
}

/** A ref's id without a git process when it is a loose ref, or when there is no repository or packed-refs yet. */
async function readRef(t: GitTarget, ref: string): Promise<string | undefined> {
  const loose = await readFile(path.join(t.gitDir, ref), 'utf8').catch(() => undefined);
  if (loose !== undefined && /^[0-9a-f]{40}\s*$/.test(loose)) return loose.trim();
  return existsSync(path.join(t.gitDir, 'packed-refs')) ? resolveRef(t, ref) : undefined;
}

async function resolveRef(t: GitTarget, ref: string): Promise<string | undefined> {
  const r = await git(t, ['rev-parse', '-q', '--verify', `${ref}^{commit}`], { okCodes: [1] });
  return r.code === 0 ? r.stdout.trim() : undefined;
}

async function listSteps(t: GitTarget, conversation: string): Promise<StepCheckpoint[]> {
  const prefix = `refs/hermes/${hashOf(conversation, 24)}/`;
  const out = await git(t, ['for-each-ref', '--format=%(refname) %(objectname) %(creatordate:unix)', prefix]);
  const byKey = new Map<string, StepCheckpoint>();
  for (const line of out.stdout.split('\n')) {
    const [ref, id, at] = line.split(' ');
    const m = ref ? /^(\d+)\/([^/]+)\/(before|after)$/.exec(ref.slice(prefix.length)) : null;
    if (!m || !id) continue;
    const k = `${m[1]}/${m[2]}`;
    const c = byKey.get(k) ?? { step: Number(m[1]), run: m[2]!, before: '', at: 0 };
    if (m[3] === 'before') Object.assign(c, { before: id, at: Number(at) });
    else c.after = id;
    byKey.set(k, c);
  }
  // A step of one run only (a reused workflow id starts at step 1 again): the newest run's.
  const steps = new Map<number, StepCheckpoint>();
  for (const c of byKey.values()) {
    if (!c.before) continue;
    const seen = steps.get(c.step);
    if (!seen || c.at > seen.at) steps.set(c.step, c);
  }
  return [...steps.values()].sort((a, b) => a.step - b.step);
}

/** The shared index copied with its mtime (rounded down), so git's racy-entry check still sees what it would. */
async function copyIndex(from: string, to: string): Promise<void> {
  const st = await stat(from).catch(() => undefined);
  if (!st) return;
  await copyFile(from, to);
  const mtime = Math.floor(st.mtimeMs) / 1000;
  await utimes(to, mtime, mtime);
}
