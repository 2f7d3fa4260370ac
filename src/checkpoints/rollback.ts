// `hermes rollback`: puts a workspace back as it was before a step of a conversation, keeping what the user changed.
//
// Whose change is a file's? Every file-changing step has two checkpoints (store.ts): before its first
// file-changing call and after its last one. What the agent wrote in step k is the difference between the two, so
// a path counts as the agent's when some step from the target on changed it and the file still holds what the
// agent's last such step left. A path that differs from the target but no step changed (the user edited it between
// steps), or that changed again after the agent's last step (the user edited it since), is kept unless `force`. The
// tool results' paths were the other way: a terminal command names none, so only the workspace itself can tell.
//
// A file that was over the size limit at the checkpoint is not in its tree, yet it existed: the checkpoint's message
// lists it (store.ts). Rollback has no content to put back, so it never deletes or rewrites such a file — not even
// with `force` —, it says it cannot restore it and leaves it as it is.
import { existsSync } from 'node:fs';
import { lstat, readdir, realpath, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { git, nulSplit, type GitTarget } from './git';
import type { CheckpointStore, LargeFile, StepCheckpoint } from './store';

export interface RollbackOptions {
  conversation: string;
  /** Restore the workspace as it was before this step (its first checkpoint from this step on); default: the latest. */
  step?: number;
  /** Only this path inside the workspace (a directory: what is under it); relative to `cwd` when that is inside it, else to the workspace. */
  file?: string;
  cwd?: string;
  /** Restore also what the user changed by hand. */
  force?: boolean;
}

export interface RollbackChange {
  path: string;
  /** restore: write the checkpoint's version; delete: the file did not exist then; keep: left as it is. */
  action: 'restore' | 'delete' | 'keep';
  why: string;
  /** Kept because the checkpoint has no copy of it (too large then): it cannot be put back, with --force neither. */
  unrestorable?: true;
}

export interface RollbackPlan {
  conversation: string;
  workspace: string;
  /** The checkpoint restored: the one before this step. */
  checkpoint: StepCheckpoint;
  changes: RollbackChange[];
  /** The workspace's state now (a tree in the shadow repository), for the diff. */
  current: string;
  target: GitTarget;
}

export class RollbackError extends Error {
  override readonly name = 'RollbackError';
}

interface Entry {
  path: string;
  /** blob id and mode in the newer tree; ZERO when the path is not there. */
  sha: string;
  mode: string;
  /** Present in the older tree. */
  before: boolean;
}

const ZERO = '0'.repeat(40);

export async function planRollback(store: CheckpointStore, o: RollbackOptions): Promise<RollbackPlan> {
  const found = await store.list(o.conversation);
  if (!found) throw new RollbackError(`no checkpoints of ${o.conversation} in ${store.settings.dir}`);
  const { steps, workspace, target } = found;
  const checkpoint = o.step === undefined ? steps[steps.length - 1]! : steps.find((s) => s.step >= o.step!);
  if (!checkpoint)
    throw new RollbackError(`no checkpoint of ${o.conversation} at or after step ${o.step} (steps with one: ${steps.map((s) => s.step).join(', ')})`);
  if (!existsSync(workspace)) throw new RollbackError(`the workspace ${workspace} does not exist`);
  const only = o.file === undefined ? undefined : relativeInside(workspace, o.file, o.cwd);

  const now = await store.snapshot(workspace);
  const skipped = new Set(now.skipped);
  // What the agent left each path as, by its last step from the target on that changed it.
  const agent = new Map<string, { sha: string; mode: string; step: number }>();
  const unknown = new Set<number>();
  for (const s of steps.filter((c) => c.step >= checkpoint.step)) {
    if (!s.after) {
      unknown.add(s.step); // its call did not finish: what it changed is not known
      continue;
    }
    for (const e of await diffTrees(target, s.before, s.after)) agent.set(e.path, { sha: e.sha, mode: e.mode, step: s.step });
  }

  const large = await store.skippedAt(target, checkpoint.before);
  const limit = store.settings.maxFileBytes;
  const wanted = (p: string) => only === undefined || only === '' || p === only || p.startsWith(`${only}/`);
  const changes: RollbackChange[] = [];
  const seen = new Set<string>();
  for (const e of await diffTrees(target, checkpoint.before, now.tree)) {
    if (!wanted(e.path)) continue;
    seen.add(e.path);
    // Absent from the checkpoint's tree is not "did not exist": it may have been too large to snapshot.
    if (!e.before && (large.files.has(e.path) || !large.complete)) {
      changes.push(noCopy(e.path, checkpoint.step, limit, large.files.get(e.path), 'changed'));
      continue;
    }
    const action = e.before ? 'restore' : 'delete';
    const mine = agent.get(e.path);
    let kept: string | undefined;
    if (skipped.has(e.path)) kept = 'larger than the checkpoint limit now, not compared';
    else if (!mine) kept = `changed by hand, not by the agent${unknown.size ? ` (or in unfinished step ${[...unknown].join(', ')})` : ''}`;
    else if (mine.sha !== e.sha || mine.mode !== e.mode) kept = `changed by hand since the agent's step ${mine.step}`;
    if (kept === undefined) changes.push({ path: e.path, action, why: agentsChange(e, mine!.step) });
    else if (o.force) changes.push({ path: e.path, action, why: `${kept} (--force)` });
    else changes.push({ path: e.path, action: 'keep', why: `${kept}: --force restores it` });
  }
  // Too large then and still (or gone now): not in either tree, so not in the diff. Said when it changed since.
  for (const f of large.files.values()) {
    if (seen.has(f.path) || !wanted(f.path)) continue;
    const st = await lstat(path.join(workspace, f.path)).catch(() => undefined);
    if (st && f.size === st.size && f.mtimeMs === Math.floor(st.mtimeMs)) continue;
    if (st && f.size === undefined) continue; // an older checkpoint: no size to compare with
    changes.push(noCopy(f.path, checkpoint.step, limit, f, st ? 'changed' : 'deleted'));
  }
  return { conversation: o.conversation, workspace, checkpoint, changes, current: now.tree, target };
}

/** What the rollback would change, as a patch from the workspace now to the checkpoint. */
export async function rollbackDiff(plan: RollbackPlan): Promise<string> {
  const paths = plan.changes.filter((c) => c.action !== 'keep').map((c) => c.path);
  if (!paths.length) return '';
  const args = ['--literal-pathspecs', 'diff', '--no-color', '--no-ext-diff', '--no-renames', plan.current, plan.checkpoint.before, '--', ...paths];
  return (await git(plan.target, args)).stdout;
}

/** Writes the plan's restores and deletions into the workspace. */
export async function applyRollback(plan: RollbackPlan): Promise<void> {
  const root = await realpath(plan.workspace);
  const deletes = plan.changes.filter((c) => c.action === 'delete').map((c) => c.path);
  const restores = plan.changes.filter((c) => c.action === 'restore').map((c) => c.path);
  for (const p of deletes) {
    // Through a symlinked directory, a path could lead out of the workspace: only what is really inside goes.
    const dir = await realpath(path.dirname(path.join(root, p))).catch(() => undefined);
    if (dir === undefined || !inside(root, dir)) continue;
    await rm(path.join(dir, path.basename(p)), { force: true });
  }
  if (restores.length) {
    // The checkpoint's tree in an index of its own; checkout-index writes the files (modes, symlinks, directories).
    const indexFile = path.join(plan.target.gitDir, `index.rollback.${process.pid}`);
    const t = { ...plan.target, indexFile };
    try {
      await git(t, ['read-tree', plan.checkpoint.before]);
      await git(t, ['checkout-index', '-f', '-z', '--stdin'], { input: restores.join('\0') });
    } finally {
      await rm(indexFile, { force: true });
    }
  }
  await pruneEmptyDirs(root, deletes, await treeDirs(plan.target, plan.checkpoint.before));
}

/** Directories the agent's deletions emptied and the checkpoint did not have. */
async function pruneEmptyDirs(root: string, deleted: string[], keep: Set<string>): Promise<void> {
  const dirs = new Set<string>();
  for (const p of deleted) for (let d = path.posix.dirname(p); d !== '.'; d = path.posix.dirname(d)) dirs.add(d);
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    if (keep.has(d)) continue;
    const abs = path.join(root, d);
    if ((await readdir(abs).catch(() => ['?'])).length === 0) await rmdir(abs).catch(() => {});
  }
}

async function treeDirs(t: GitTarget, commit: string): Promise<Set<string>> {
  const out = await git(t, ['ls-tree', '-r', '-d', '-z', '--name-only', commit]);
  return new Set(nulSplit(out.stdout));
}

async function diffTrees(t: GitTarget, from: string, to: string): Promise<Entry[]> {
  const out = nulSplit((await git(t, ['diff-tree', '-r', '-z', '--no-renames', from, to])).stdout);
  const entries: Entry[] = [];
  for (let i = 0; i + 1 < out.length; i += 2) {
    const [srcMode, dstMode, , dstSha] = out[i]!.slice(1).split(' ');
    entries.push({ path: out[i + 1]!, sha: dstSha!, mode: dstMode!, before: srcMode !== '000000' });
  }
  return entries.map((e) => (e.mode === '000000' ? { ...e, sha: ZERO } : e));
}

function noCopy(p: string, step: number, limit: number, f: LargeFile | undefined, since?: 'changed' | 'deleted'): RollbackChange {
  const why = f
    ? `existed before step ${step} but was over the checkpoint limit (${f.size !== undefined ? `${f.size} > ` : 'over '}${limit} bytes), so there is no copy of it` +
      `${since ? ` and it was ${since} since` : ''}: it cannot be restored and is left as it is (HERMES_CHECKPOINT_MAX_FILE_BYTES)`
    : `not in the checkpoint of step ${step}, which lists only some of its files over the limit: it may have existed, so it is not deleted`;
  return { path: p, action: 'keep', why, unrestorable: true };
}

function agentsChange(e: Entry, step: number): string {
  if (!e.before) return `created by the agent (last written in step ${step})`;
  return e.sha === ZERO ? `deleted by the agent in step ${step}` : `changed by the agent (last in step ${step})`;
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function relativeInside(workspace: string, file: string, cwd?: string): string {
  const abs = path.resolve(cwd !== undefined && inside(workspace, path.resolve(cwd)) ? cwd : workspace, file);
  if (!inside(workspace, abs)) throw new RollbackError(`${file} is not inside the workspace ${workspace}`);
  return path.relative(workspace, abs).split(path.sep).join('/');
}
