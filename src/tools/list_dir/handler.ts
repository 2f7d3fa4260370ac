// list_dir in the tool activity: walks the workspace to the asked depth, not into node_modules or .git, and stops
// at MAX_LIST_ENTRIES with a note.
import { lstat, readlink } from 'node:fs/promises';
import * as path from 'node:path';
import { builtinTool, ToolError, type ToolHandler } from '../handler';
import { listDirSpec } from './spec';
import { resolveInWorkspace } from '../workspace';
import { formatSize, readDirOrNote, SKIP_DIRS, statOrFail } from '../handler-helpers/fs-util';

export const MAX_LIST_ENTRIES = 500;

export const listDir: ToolHandler<typeof listDirSpec.schema> = async (args, ctx) => {
  const shown = args.path ?? '.';
  const root = await resolveInWorkspace(ctx.workspace, shown);
  if (!(await statOrFail(root, shown)).isDirectory()) throw new ToolError(`${shown} is not a directory`);
  const maxDepth = Math.min(4, Math.max(1, args.depth ?? 1));
  const out: string[] = [];
  let capped = false;

  // Depth-first so a directory's contents follow it; paths are relative to the listed directory.
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await readDirOrNote(dir, root);
    if (typeof entries === 'string') return void out.push(entries);
    for (const e of entries) {
      if (out.length >= MAX_LIST_ENTRIES) {
        capped = true;
        return;
      }
      const abs = path.join(dir, e.name);
      const rel = path.relative(root, abs);
      if (e.isSymbolicLink()) {
        // Not followed: the target may be outside the workspace.
        out.push(`${rel} -> ${await readlink(abs).catch(() => '?')}`);
      } else if (e.isDirectory()) {
        out.push(`${rel}/`);
        if (depth < maxDepth && !SKIP_DIRS.has(e.name)) await walk(abs, depth + 1);
      } else {
        const size = await lstat(abs).then(
          (s) => formatSize(s.size),
          () => '?',
        );
        out.push(`${rel} (${size})`);
      }
    }
  };
  await walk(root, 1);
  if (out.length === 0) return `(${shown} is empty)`;
  if (capped) out.push(`[listing stopped at ${MAX_LIST_ENTRIES} entries; list a subdirectory or use a smaller depth]`);
  return out.join('\n');
};

export const listDirTool = builtinTool(listDirSpec, listDir);
