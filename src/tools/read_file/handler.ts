// read_file in the tool activity: pages through a text file inside the workspace; binary and special files are
// refused with a ToolError the model reads.
import { readFile as fsReadFile } from 'node:fs/promises';
import { builtinTool, ToolError, type ToolHandler } from '../handler';
import { readFileSpec } from './spec';
import { resolveInWorkspace } from '../workspace';
import { isBinary, MAX_READ_BYTES, requireRegular, splitLines, statOrFail } from '../handler-helpers/fs-util';

const DEFAULT_LIMIT = 500;
/** Minified files have enormous lines; one line must not blow the whole output budget. */
const MAX_LINE_CHARS = 2000;

export const readFile: ToolHandler<typeof readFileSpec.schema> = async (args, ctx) => {
  const abs = await resolveInWorkspace(ctx.workspace, args.path);
  const st = await statOrFail(abs, args.path);
  if (st.isDirectory()) throw new ToolError(`${args.path} is a directory; use list_dir to see its entries`);
  requireRegular(st, args.path);
  if (st.size > MAX_READ_BYTES) throw new ToolError(`${args.path} is too large to read (${st.size} bytes); use search_files or terminal (head/sed)`);
  const buf = await fsReadFile(abs);
  if (isBinary(buf)) throw new ToolError(`${args.path} is a binary file (${st.size} bytes)`);

  const lines = splitLines(buf.toString('utf8'));
  const total = lines.length;
  if (total === 0) return `(${args.path} is empty)`;
  const offset = args.offset ?? 1;
  const limit = args.limit ?? DEFAULT_LIMIT;
  if (offset > total) throw new ToolError(`offset ${offset} is past the end of ${args.path} (${total} lines)`);

  const end = Math.min(total, offset - 1 + limit);
  const width = Math.max(4, String(end).length);
  const body = lines.slice(offset - 1, end).map((line, i) => {
    const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} chars]` : line;
    return `${String(offset + i).padStart(width)}| ${text}`;
  });
  const footer =
    end < total
      ? `[lines ${offset}-${end} of ${total}; ${total - end} more — call read_file with offset=${end + 1} for the next page]`
      : `[lines ${offset}-${end} of ${total}; end of file]`;
  return `${body.join('\n')}\n${footer}`;
};

export const readFileTool = builtinTool(readFileSpec, readFile);
