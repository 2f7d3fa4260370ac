// write_file in the tool activity: writes atomically (temp file, then rename) under the per-path lock
// (handler-helpers/path-lock.ts), inside the workspace.
import { mkdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { builtinTool, ToolError, type ToolHandler } from '../handler';
import { writeFileSpec } from './spec';
import { resolveInWorkspace } from '../workspace';
import { requireRegular, writeAtomically } from '../handler-helpers/fs-util';
import { withPathLock } from '../handler-helpers/path-lock';

export const writeFile: ToolHandler<typeof writeFileSpec.schema> = async (args, ctx) => {
  const abs = await resolveInWorkspace(ctx.workspace, args.path);
  // Under the file's lock, so it lands between two patches instead of inside one's read-modify-write.
  return withPathLock(abs, ctx.signal, () => writeTo(abs, args));
};

async function writeTo(abs: string, args: Parameters<typeof writeFile>[0]): Promise<string> {
  const existing = await stat(abs).catch(() => undefined);
  if (existing?.isDirectory()) throw new ToolError(`${args.path} is a directory`);
  if (existing) requireRegular(existing, args.path);
  try {
    await mkdir(path.dirname(abs), { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new ToolError(`cannot write ${args.path}: a part of its directory path is a file, not a directory`);
    }
    throw err;
  }
  await writeAtomically(abs, args.content);
  return `Wrote ${Buffer.byteLength(args.content, 'utf8')} bytes to ${args.path}`;
}

export const writeFileTool = builtinTool(writeFileSpec, writeFile);
