import { mkdir, stat, writeFile as fsWriteFile } from 'node:fs/promises';
import { requireRegular } from './fs-util';
import * as path from 'node:path';
import { ToolError, type ToolHandler } from '../spec';
import type { writeFileSpec } from '../specs/write_file';
import { resolveInWorkspace } from '../workspace';

export const writeFile: ToolHandler<typeof writeFileSpec.schema> = async (args, ctx) => {
  const abs = await resolveInWorkspace(ctx.workspace, args.path);
  const existing = await stat(abs).catch(() => undefined);
  if (existing) requireRegular(existing, args.path, true); // a directory gets its own message below
  await mkdir(path.dirname(abs), { recursive: true });
  try {
    await fsWriteFile(abs, args.content, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EISDIR') throw new ToolError(`${args.path} is a directory`);
    throw err;
  }
  return `Wrote ${Buffer.byteLength(args.content, 'utf8')} bytes to ${args.path}`;
};
