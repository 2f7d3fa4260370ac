// Which directories a conversation may name as its workspace. Only the worker knows its filesystem, so the
// workflow asks it when a conversation starts (checkWorkspace) and every tool call checks again (runTool):
// a workflow input from the Web UI or a Schedule must not turn `read_file /etc/passwd` into a legal call.
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** HERMES_WORKSPACE_ROOTS (separated like PATH), else the worker's default workspace. */
export function workspaceRoots(defaultWorkspace: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = (env.HERMES_WORKSPACE_ROOTS ?? '').split(path.delimiter).filter((p) => p.trim());
  return (listed.length ? listed : [defaultWorkspace]).map((p) => path.resolve(p));
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** The workspace's real path, or an error naming the problem (missing, not a directory, outside the roots). */
export async function checkWorkspaceDir(dir: string, roots: string[]): Promise<{ real: string } | { error: string }> {
  let real: string;
  try {
    real = await realpath(dir);
    if (!(await stat(real)).isDirectory()) return { error: `workspace ${dir} is not a directory on this worker` };
  } catch {
    return { error: `workspace ${dir} does not exist on this worker` };
  }
  const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => r)));
  if (realRoots.some((r) => isInside(r, real))) return { real };
  return { error: `workspace ${dir} is outside this worker's workspace roots (${roots.join(', ')}); set HERMES_WORKSPACE_ROOTS to allow it` };
}
