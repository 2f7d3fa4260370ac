// Keeps tool results small before they enter workflow history (every activity result is recorded there),
// while saving the full text in the workspace so the model can page through it with read_file.
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

export const OUTPUT_DIR = '.hermes-output';

/** Head (~70%) and tail (~30%) of `text` within `limit` characters, with a marker and a pointer to the full copy. */
export async function limitOutput(
  text: string,
  limit: number,
  saveFull: () => Promise<string | undefined>,
): Promise<{ content: string; truncated: boolean }> {
  if (text.length <= limit) return { content: text, truncated: false };
  const saved = await saveFull().catch(() => undefined);
  const note = saved
    ? `\n[full output (${text.length} characters) saved to ${saved}; page through it with read_file]`
    : '';
  const head = Math.floor(limit * 0.7);
  const tail = Math.max(0, limit - head);
  const omitted = text.length - head - tail;
  return {
    content: `${text.slice(0, head)}\n[... ${omitted} characters omitted ...]\n${text.slice(text.length - tail)}${note}`,
    truncated: true,
  };
}

/** Writes `text` to <workspace>/.hermes-output/<callId>.txt; returns that path relative to the workspace. */
export async function saveFullOutput(workspace: string, callId: string, text: string): Promise<string> {
  const safeId = callId.replace(/[^A-Za-z0-9_.-]/g, '_') || 'output';
  const rel = path.posix.join(OUTPUT_DIR, `${safeId}.txt`);
  await mkdir(path.join(workspace, OUTPUT_DIR), { recursive: true });
  await writeFile(path.join(workspace, rel), text, 'utf8');
  return rel;
}

export interface FinishedOutput {
  content: string;
  /** Characters of the untruncated output. */
  size: number;
  truncated: boolean;
}

export async function finishToolOutput(
  text: string,
  opts: { limit: number; workspace?: string; callId: string },
): Promise<FinishedOutput> {
  const { workspace } = opts;
  const save = workspace ? () => saveFullOutput(workspace, opts.callId, text) : async () => undefined;
  const { content, truncated } = await limitOutput(text, opts.limit, save);
  return { content, size: text.length, truncated };
}
