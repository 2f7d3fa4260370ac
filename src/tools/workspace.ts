// Confines file and terminal tools to the workspace. Symlinks are resolved before the check, so a link inside
// the workspace that points elsewhere cannot be used to escape it.
import { lstat, readlink, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { ToolError } from './handler';

/** realpath of the longest existing prefix of `abs`, with the not-yet-existing rest appended. */
async function realpathLoose(abs: string): Promise<string> {
  const missing: string[] = [];
  let current = abs;
  for (let links = 0; ;) {
    try {
      return path.join(await realpath(current), ...missing.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTDIR: a prefix is a file; the final open will fail with a clear error, the path is still checkable.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      // A dangling symlink: writing through it would create its target, so follow it by hand.
      const isLink = await lstat(current).then(
        (s) => s.isSymbolicLink(),
        () => false,
      );
      if (isLink && links++ < 40) {
        current = path.resolve(path.dirname(current), await readlink(current));
        continue;
      }
      const parent = path.dirname(current);
      if (parent === current) return abs;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Absolute real path of `p` (relative to the workspace, or absolute inside it); ToolError when outside. */
export async function resolveInWorkspace(workspace: string, p: string): Promise<string> {
  const root = await realpath(workspace);
  const outside = () => new ToolError(`path "${p}" is outside the workspace (${root})`);
  // Absolute paths may name the workspace through a symlink (/tmp → /private/tmp); only the real path counts.
  const real = await realpathLoose(path.resolve(root, p));
  if (!isInside(root, real)) throw outside();
  return real;
}
