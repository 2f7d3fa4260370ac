// patch in the tool activity: read, replace, write atomically under the per-path lock (handler-helpers/path-lock.ts),
// keeping the file's line endings; a missing or ambiguous match is a ToolError the model reads.
import { readFile } from 'node:fs/promises';
import { builtinTool, ToolError, type ToolHandler } from '../handler';
import { patchSpec } from './spec';
import { resolveInWorkspace } from '../workspace';
import { isBinary, MAX_READ_BYTES, requireRegular, statOrFail, writeAtomically } from '../handler-helpers/fs-util';
import { withPathLock } from '../handler-helpers/path-lock';

/**
 * A file up to this size is shown whole when old_string is not in it: a model that guessed the text (a small one
 * often patches before it reads) gets it in the same step instead of a read_file round trip it may not make.
 */
const SHOWN_CHARS = 2_000;

export const patch: ToolHandler<typeof patchSpec.schema> = async (args, ctx) => {
  const abs = await resolveInWorkspace(ctx.workspace, args.path);
  // Read, replace and write under the file's lock: a concurrent patch or write_file must not be overwritten.
  return withPathLock(abs, ctx.signal, () => patchFile(abs, args));
};

async function patchFile(abs: string, args: Parameters<typeof patch>[0]): Promise<string> {
  const st = await statOrFail(abs, args.path);
  if (st.isDirectory()) throw new ToolError(`${args.path} is a directory`);
  requireRegular(st, args.path);
  if (st.size > MAX_READ_BYTES) throw new ToolError(`${args.path} is too large to patch (${st.size} bytes); use terminal (sed)`);
  const buf = await readFile(abs);
  // Decoding and re-encoding would corrupt it: a binary file is never patched as text.
  if (isBinary(buf)) throw new ToolError(`${args.path} is a binary file (${st.size} bytes); patch edits text files only`);
  const text = buf.toString('utf8');
  // Latin-1 and other encodings do not survive the round trip: every byte that is not valid UTF-8 would become U+FFFD.
  if (!Buffer.from(text, 'utf8').equals(buf)) {
    throw new ToolError(`${args.path} is not valid UTF-8 text; patching it would change other bytes too. Use terminal (sed) for it`);
  }
  if (args.old_string === args.new_string) return `No change: old_string and new_string are the same; ${args.path} was left as it is`;
  // read_file shows lines without their \r: in a CRLF file, match and write with the file's line endings.
  const crlf = text.includes('\r\n') && !args.old_string.includes('\r');
  const oldString = crlf ? args.old_string.replace(/\n/g, '\r\n') : args.old_string;
  const newString = crlf ? args.new_string.replace(/\r?\n/g, '\r\n') : args.new_string;
  // split/join instead of String.replace: new_string must be inserted literally ("$&" is not a pattern here)
  const parts = text.split(oldString);
  const count = parts.length - 1;
  if (count === 0) {
    const hint = `old_string was not found in ${args.path}; copy the text to replace exactly, including whitespace`;
    throw new ToolError(text.length <= SHOWN_CHARS ? `${hint}. Its text now:\n${text}` : `${hint} (read the file again first)`);
  }
  if (count > 1 && !args.replace_all) {
    throw new ToolError(
      `old_string appears ${count} times in ${args.path}; include more surrounding lines to make it unique, or set replace_all to replace all ${count}`,
    );
  }
  await writeAtomically(abs, parts.join(newString));
  return `Replaced ${count} occurrence${count === 1 ? '' : 's'} in ${args.path}`;
}

export const patchTool = builtinTool(patchSpec, patch);
