// Runs the system's git against a shadow repository: GIT_DIR is the shadow store, GIT_WORK_TREE the workspace, so
// the workspace's own .git is never read or written. The environment is the tools' allow-list (src/tools/env.ts),
// never the worker's, and no user or system git config applies: a `filter.*.clean` command named by a global config
// and a workspace's .gitattributes would otherwise run with the worker's rights on every snapshot.
import { spawn } from 'node:child_process';
import { toolEnv } from '../tools/env';

export interface GitTarget {
  gitDir: string;
  workTree: string;
  /** The index this command uses (snapshots give every command its own copy; see store.ts). */
  indexFile?: string;
}

export interface GitCall {
  input?: string;
  signal?: AbortSignal;
  /** Exit codes that are not a failure (e.g. 1 for `rev-parse --verify` of a missing ref). */
  okCodes?: number[];
}

export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    message: string,
    readonly code: number | null,
  ) {
    super(message);
  }
}

export function gitEnv(t: GitTarget): NodeJS.ProcessEnv {
  return toolEnv([], {
    GIT_DIR: t.gitDir,
    GIT_WORK_TREE: t.workTree,
    ...(t.indexFile ? { GIT_INDEX_FILE: t.indexFile } : {}),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'hermes',
    GIT_AUTHOR_EMAIL: 'hermes@localhost',
    GIT_COMMITTER_NAME: 'hermes',
    GIT_COMMITTER_EMAIL: 'hermes@localhost',
    LC_ALL: 'C',
  });
}

/** stdout of `git args` (run in the work tree); a non-zero exit not in okCodes rejects with git's stderr. */
export function git(t: GitTarget, args: string[], call: GitCall = {}): Promise<{ stdout: string; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: t.workTree,
      env: gitEnv(t),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(call.signal ? { signal: call.signal } : {}),
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
    child.once('error', (e) => reject(e));
    child.once('close', (code) => {
      if (code === 0 || (code !== null && call.okCodes?.includes(code))) resolve({ stdout: Buffer.concat(out).toString('utf8'), code });
      else reject(new GitError(`git ${args[0]} failed (exit ${code}): ${err.trim()}`, code));
    });
    child.stdin.on('error', () => {}); // git may exit before reading all of it; the exit code tells
    child.stdin.end(call.input ?? '');
  });
}

/** NUL-separated fields of `-z` output. */
export function nulSplit(s: string): string[] {
  const parts = s.split('\0');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}
