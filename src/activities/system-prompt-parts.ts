// The per-conversation parts of the system prompt, gathered where the workspace is: on a worker (the
// buildSystemPrompt local activity) or in the CLI (`hermes run --show-prompt`). The workflow composes them with
// src/workflows/loop/system-prompt.ts.
import { readFile, stat } from 'node:fs/promises';
import { redactMemoryView } from '../memory/client';
import type { Redactor } from '../security/redact';
import { scanForInjection } from '../shared/injection';
import { promptSkills, type SkillListing } from '../skills/sources';
import type { MemoryView } from '../shared/memory';
import { resolveInWorkspace } from '../tools/workspace';
import type { ContextFile, PromptParts } from '../shared/system-prompt';

/** Looked for in this order; the first one the workspace has is the project context. */
export const CONTEXT_FILES = ['HERMES.md', 'AGENTS.md', 'CLAUDE.md'];
/** Characters of a context file that enter the prompt (head and tail kept). */
export const CONTEXT_FILE_CHARS = 20_000;
/** A file larger than this is not read at all (an instructions file that large is not one). */
const MAX_READ_BYTES = 1024 * 1024;

export interface GatherOptions {
  workspace: string;
  /** Reads the memory snapshot; absent when the conversation does not offer memory. */
  memory?: () => Promise<MemoryView | null>;
  redactor?: Redactor;
  now?: Date;
  /** Lists the skills; absent when the conversation does not offer skill_view. */
  skills?: () => Promise<SkillListing>;
}

export async function gatherPromptParts(o: GatherOptions): Promise<PromptParts> {
  const [contextFile, memory, skills] = await Promise.all([
    readContextFile(o.workspace, o.redactor),
    o.memory?.().then(
      (view) => ({ view }),
      (err: Error) => ({ error: err.message }),
    ),
    o.skills?.().then(
      (listing) => promptSkills(listing, o.redactor),
      (err: Error) => ({ entries: [], more: 0, error: err.message }),
    ),
  ]);
  return {
    date: (o.now ?? new Date()).toISOString().slice(0, 10),
    workspace: o.workspace,
    ...(contextFile ? { contextFile } : {}),
    ...(memory && 'view' in memory ? { memory: memory.view && o.redactor ? redactMemoryView(memory.view, o.redactor) : memory.view } : {}),
    ...(memory && 'error' in memory ? { memoryError: memory.error } : {}),
    ...(skills ? { skills } : {}),
  };
}

/** The first context file of the workspace, capped and scanned; undefined when it has none. */
export async function readContextFile(workspace: string, redactor?: Redactor): Promise<ContextFile | undefined> {
  for (const name of CONTEXT_FILES) {
    let real: string;
    try {
      // A symlink that leads out of the workspace (to ~/.ssh/…) is not followed: its text would go to the model.
      real = await resolveInWorkspace(workspace, name);
      const s = await stat(real);
      if (!s.isFile()) continue;
      if (s.size > MAX_READ_BYTES)
        return { name, chars: s.size, error: `it is ${s.size} bytes, more than the ${MAX_READ_BYTES} read for a context file` };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      return { name, chars: 0, error: (err as Error).message };
    }
    let raw: string;
    try {
      raw = await readFile(real, 'utf8');
    } catch (err) {
      return { name, chars: 0, error: (err as Error).message };
    }
    return contextFileOf(name, raw, redactor);
  }
  return undefined;
}

/** Capping, the injection scan (of the text that would enter the prompt) and redaction. Exported for tests. */
export function contextFileOf(name: string, raw: string, redactor?: Redactor): ContextFile {
  const text = capHeadTail(raw.trimEnd(), CONTEXT_FILE_CHARS, name);
  const finding = scanForInjection(text);
  if (finding) return { name, chars: raw.length, blocked: finding };
  return { name, chars: raw.length, text: redactor ? redactor.redact(text).text : text };
}

/** At most `limit` characters: the head (70 %) and the tail, with a line that says what was cut between them. */
export function capHeadTail(text: string, limit: number, name: string): string {
  if (text.length <= limit) return text;
  const marker = (n: number) =>
    `\n\n[... ${n} characters of ${name} cut here: the file has ${text.length}; read it with read_file for the rest ...]\n\n`;
  // The marker's length depends on the number it states, which depends on the marker's length: one more round settles it.
  let keep = limit - marker(text.length - limit).length;
  keep = limit - marker(text.length - keep).length;
  const head = Math.floor(keep * 0.7);
  const tail = keep - head;
  return `${text.slice(0, head)}${marker(text.length - keep)}${text.slice(text.length - tail)}`;
}
