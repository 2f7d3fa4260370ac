// Helpers shared by the file tools' handlers.
import { chmod, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import * as path from 'node:path';
import type { Stats } from 'node:fs';
import { ToolError } from '../handler';

/** Directories whose contents are never listed or searched (huge, and not what the model is after). */
/** Code-point order: stable across locales, dot-files first. */
export const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export const SKIP_DIRS = new Set(['node_modules', '.git']);

/** Files above this size are not read whole into memory. */
export const MAX_READ_BYTES = 20 * 1024 * 1024;

/** Same heuristic as git and grep: a NUL byte in the first 8 KB means binary. */
export function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8192).includes(0);
}

/** stat that turns "no such file" into a message for the model. */
export async function statOrFail(abs: string, shown: string): Promise<Stats> {
  try {
    return await stat(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolError(`no such file or directory: ${shown}`);
    throw err;
  }
}

/**
 * Refuses anything but a regular file (or a directory, where `dirOk`): opening a FIFO blocks until someone opens
 * its other end — forever, on one of libuv's four threads — and device files never end.
 */
export function requireRegular(st: Stats, shown: string, dirOk = false): void {
  if (st.isFile() || (dirOk && st.isDirectory())) return;
  const kind = st.isFIFO() ? 'named pipe' : st.isSocket() ? 'socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'device' : 'special file';
  throw new ToolError(`${shown} is a ${kind}, not a regular file; the file tools only read and write regular files`);
}

/**
 * A directory's entries sorted by name — or, when it cannot be read (permissions), a line saying so: one
 * unreadable subdirectory must not fail a whole listing or search.
 */
export async function readDirOrNote(dir: string, root: string): Promise<Dirent[] | string> {
  try {
    return (await readdir(dir, { withFileTypes: true })).sort(byName);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (dir === root || (code !== 'EACCES' && code !== 'EPERM')) throw err;
    return `${path.relative(root, dir)}/ (not readable: permission denied)`;
  }
}

let tmpCounter = 0;

/**
 * Writes through a temporary file in the same directory and renames it over the target: a full disk or a crash
 * mid-write leaves the old file whole instead of truncated. Keeps an existing file's mode.
 */
export async function writeAtomically(abs: string, text: string): Promise<void> {
  // The counter keeps two writes in one millisecond apart (pid and clock alone collided: EEXIST).
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.hermes-${process.pid}-${Date.now().toString(36)}-${++tmpCounter}.tmp`);
  const mode = (await stat(abs).catch(() => undefined))?.mode;
  try {
    await writeFile(tmp, text, { encoding: 'utf8', flag: 'wx' });
    if (mode !== undefined) await chmod(tmp, mode & 0o7777);
    await rename(tmp, abs);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Lines of a text file without the empty element after a final newline. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
