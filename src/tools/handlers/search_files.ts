import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ToolError, type ToolContext, type ToolHandler } from '../spec';
import type { searchFilesSpec } from '../specs/search_files';
import { resolveInWorkspace } from '../workspace';
import { LineMatcher, type LineHit } from './line-matcher';
import { byName, isBinary, MAX_READ_BYTES, requireRegular, SKIP_DIRS, splitLines, statOrFail } from './fs-util';

const DEFAULT_MAX_RESULTS = 100;
const MAX_LINE_CHARS = 300;

/** "*.ts" → /^.*\.ts$/ on the file name; only * and ? are wildcards. */
function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
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
  const nameFilter = args.glob ? globToRegExp(args.glob) : undefined;
  const max = args.max_results ?? DEFAULT_MAX_RESULTS;
  const hits: string[] = [];
  let files = 0;

  const matcher = new LineMatcher(re, max);
  const take = (found: LineHit[]) => {
    for (const h of found) hits.push(`${h.file}:${h.line + 1}: ${h.text.slice(0, MAX_LINE_CHARS)}`);
  };
  const searchFile = async (abs: string) => {
    if (++files % 200 === 0) checkpoint(ctx);
    const buf = await readFile(abs).catch(() => undefined);
    if (!buf || buf.length > MAX_READ_BYTES || isBinary(buf)) return;
    take(matcher.add(path.relative(ctx.workspace, abs), splitLines(buf.toString('utf8')), buf.length));
  };
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort(byName);
    for (const e of entries) {
      if (matcher.done) return;
      const abs = path.join(dir, e.name);
      // Symlinks are not followed: they may lead outside the workspace or into cycles.
      if (e.isDirectory() && !SKIP_DIRS.has(e.name)) await walk(abs);
      else if (e.isFile() && (!nameFilter || nameFilter.test(e.name))) await searchFile(abs);
    }
  };
  if (isDir) await walk(start);
  else await searchFile(start);
  take(matcher.flush());

  if (hits.length === 0) return `No matches for /${args.pattern}/ in ${shown}${args.glob ? ` (files ${args.glob})` : ''}`;
  if (hits.length >= max) hits.push(`[reached max_results=${max}; there may be more — narrow the pattern, path or glob]`);
  return hits.join('\n');
};

/** Long searches keep the activity alive and stop promptly when it is cancelled. */
function checkpoint(ctx: ToolContext): void {
  ctx.signal.throwIfAborted();
  ctx.heartbeat();
}
