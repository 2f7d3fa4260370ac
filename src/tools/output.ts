// Keeps tool results small before they enter workflow history (every activity result is recorded there),
// while saving the full text in the workspace so the model can page through it with read_file.
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import * as path from 'node:path';
import type { Redactor } from '../security/redact';
import { resolveInWorkspace } from './workspace';

export const OUTPUT_DIR = '.hermes-output';

/** Head (~70%) and tail (~30%) of `text` within `limit` characters, with a marker and a pointer to the full copy. */
export async function limitOutput(
  text: string,
  limit: number,
  saveFull: () => Promise<string | undefined>,
): Promise<{ content: string; truncated: boolean }> {
  if (text.length <= limit) return { content: text, truncated: false };
  const saved = await saveFull().catch(() => undefined);
  const note = saved ? `\n[full output (${text.length} characters) saved to ${saved}; page through it with read_file]` : '';
  const head = Math.floor(limit * 0.7);
  const tail = Math.max(0, limit - head);
  const omitted = text.length - head - tail;
  return {
    content: `${text.slice(0, head)}\n[... ${omitted} characters omitted ...]\n${text.slice(text.length - tail)}${note}`,
    truncated: true,
  };
}

const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '_');

/**
 * Writes `text` to <workspace>/.hermes-output/[<workflowId>-]<callId>.txt; returns that path relative to the
 * workspace. The workflow id keeps conversations sharing a workspace (and providers' predictable call ids)
 * from overwriting each other's outputs. The model can plant symlinks: the directory must resolve inside the
 * workspace, and the file is opened without following a link.
 */
export async function saveFullOutput(workspace: string, callId: string, text: string, workflowId?: string): Promise<string> {
  const name = `${workflowId ? `${safe(workflowId)}-` : ''}${safe(callId) || 'output'}.txt`;
  await mkdir(path.join(workspace, OUTPUT_DIR), { recursive: true });
  const dir = await resolveInWorkspace(workspace, OUTPUT_DIR);
  const { O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW } = constants;
  const file = await open(path.join(dir, name), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o644);
  try {
    await file.writeFile(text, 'utf8');
  } finally {
    await file.close();
  }
  return path.posix.join(OUTPUT_DIR, name);
}

export interface FinishedOutput {
  content: string;
  /** Characters of the untruncated (redacted) output. */
  size: number;
  truncated: boolean;
  /** Secrets the redactor replaced (only when there were any). */
  redactions?: number;
}

/**
 * The tool result as it may leave the activity: redacted first (the whole text, so a secret is never cut in two
 * by the truncation and the full copy saved for paging is redacted too), then limited.
 */
export async function finishToolOutput(
  raw: string,
  opts: { limit: number; workspace?: string; callId: string; workflowId?: string; redactor?: Redactor },
): Promise<FinishedOutput> {
  const { text, count } = opts.redactor ? opts.redactor.redact(raw) : { text: raw, count: 0 };
  const { workspace } = opts;
  const save = workspace ? () => saveFullOutput(workspace, opts.callId, text, opts.workflowId) : async () => undefined;
  const { content, truncated } = await limitOutput(text, opts.limit, save);
  return { content, size: text.length, truncated, ...(count ? { redactions: count } : {}) };
}
