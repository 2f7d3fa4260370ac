// A user's own git repository in a workspace, and a fingerprint of its .git: checkpoints (src/checkpoints/) must
// leave it exactly as it was. Used by test/rollback.test.ts and bench/checkpoints.ts.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** `git init` + commit of everything in ws, as a user would have it. */
export function userRepo(ws: string): void {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@u', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@u' };
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['commit', '-q', '-m', 'user'],
  ])
    execFileSync('git', args, { cwd: ws, env, stdio: 'ignore' });
}

/** Names and mtimes of everything under ws/.git. */
export function gitDirState(ws: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${p} ${statSync(p).mtimeMs}`);
    }
  };
  walk(path.join(ws, '.git'));
  return out.sort().join('\n');
}
