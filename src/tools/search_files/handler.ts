// search_files in the tool activity: walks the workspace, filters by picomatch glob, and matches lines with
// line-matcher.ts (a time limit per pattern, so a catastrophic regex cannot block the worker).
import { readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { builtinTool, ToolError, type ToolContext, type ToolHandler } from '../handler';
import { searchFilesSpec } from './spec';
import { resolveInWorkspace } from '../workspace';
import { LineMatcher, type LineHit } from './line-matcher';
import { formatSize, isBinary, MAX_READ_BYTES, readDirOrNote, requireRegular, SKIP_DIRS, splitLines, statOrFail } from '../handler-helpers/fs-util';

const DEFAULT_MAX_RESULTS = 100;
const MAX_LINE_CHARS = 300;

/**
 * The file filter for a glob (picomatch: `*`, `?`, `**`, `[abc]`, `{a,b}`, extglobs). A glob without a slash
 * matches the file name at any depth; one with a slash matches the path relative to the workspace or to the
 * searched directory, so `src/*.ts` works whether the model searched "." or "src". Dot-files match like any other.
 */
function globFilter(glob: string, workspace: string, start: string): (abs: string) => boolean {
  let isMatch: (p: string) => boolean;
  try {
    isMatch = picomatch(glob, { dot: true, basename: !glob.includes('/') });
  } catch (err) {
    throw new ToolError(`invalid glob ${JSON.stringify(glob)}: ${(err as Error).message}`);
  }
  const posix = (p: string) => p.split(path.sep).join('/');
  return (abs) => isMatch(posix(path.relative(workspace, abs))) || isMatch(posix(path.relative(start, abs)));
}

export const searchFiles: ToolHandler<typeof searchFilesSpec.schema> = async (args, ctx) => {
  let re: RegExp;
  try {
    re = new RegExp(args.pattern);
  } catch (err) {
    throw new ToolError(`invalid regular expression ${JSON.stringify(args.pattern)}: ${(err as Error).message}`);
  }
  const shown = args.path ?? '.';
  const start = await resolveInWorkspace(ctx.workspace, shown);
  const st = await statOrFail(start, shown);
  requireRegular(st, shown, true);
  const isDir = st.isDirectory();
  const fileFilter = args.glob ? globFilter(args.glob, ctx.workspace, isDir ? start : path.dirname(start)) : undefined;
  const max = args.max_results ?? DEFAULT_MAX_RESULTS;
  const hits: string[] = [];
  /** Directories that could not be read and files too large to search: said, not silently left out. */
  const skipped: string[] = [];
  let files = 0;

  const matcher = new LineMatcher(re, max);
  const take = (found: LineHit[]) => {
    for (const h of found) hits.push(`${h.file}:${h.line + 1}: ${h.text.slice(0, MAX_LINE_CHARS)}`);
  };
  const searchFile = async (abs: string) => {
    if (++files % 200 === 0) checkpoint(ctx, { filesSearched: files, matches: hits.length });
    const rel = path.relative(ctx.workspace, abs);
    const size = (await stat(abs).catch(() => undefined))?.size;
    if (size === undefined) return;
    // Checked before reading: a multi-gigabyte log would otherwise be read whole into memory first.
    if (size > MAX_READ_BYTES) return void skipped.push(`${rel} (${formatSize(size)}: too large to search here; use terminal grep)`);
    const buf = await readFile(abs).catch(() => undefined);
    if (!buf || isBinary(buf)) return;
    take(matcher.add(rel, splitLines(buf.toString('utf8')), buf.length));
  };
  const walk = async (dir: string): Promise<void> => {
    checkpoint(ctx, { filesSearched: files, matches: hits.length }); // per directory too: a glob that matches nothing must still heartbeat and stop on cancel
    const entries = await readDirOrNote(dir, start);
    if (typeof entries === 'string') return void skipped.push(entries);
    for (const e of entries) {
      if (matcher.done) return;
      const abs = path.join(dir, e.name);
      // Symlinks are not followed: they may lead outside the workspace or into cycles.
      if (e.isDirectory() && !SKIP_DIRS.has(e.name)) await walk(abs);
      else if (e.isFile() && (!fileFilter || fileFilter(abs))) await searchFile(abs);
    }
  };
  if (isDir) await walk(start);
  else await searchFile(start);
  take(matcher.flush());

  const notes = skipped.length
    ? [`[not searched: ${skipped.slice(0, 20).join('; ')}${skipped.length > 20 ? `; and ${skipped.length - 20} more` : ''}]`]
    : [];
  // Said apart from "no line matched": a glob that selects no file at all is most likely the wrong glob.
  if (args.glob && isDir && files === 0) return [`No file in ${shown} matches the glob ${JSON.stringify(args.glob)}`, ...notes].join('\n');
  if (hits.length === 0) return [`No matches for /${args.pattern}/ in ${shown}${args.glob ? ` (files ${args.glob})` : ''}`, ...notes].join('\n');
  if (hits.length >= max) hits.push(`[reached max_results=${max}; there may be more — narrow the pattern, path or glob]`);
  return [...hits, ...notes].join('\n');
};

/** Long searches keep the activity alive, say how far they got, and stop promptly when cancelled. */
function checkpoint(ctx: ToolContext, progress: { filesSearched: number; matches: number }): void {
  ctx.signal.throwIfAborted();
  ctx.heartbeat(progress);
}

export const searchFilesTool = builtinTool(searchFilesSpec, searchFiles);
