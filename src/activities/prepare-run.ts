// A fresh conversation's start, asked of its worker in one local activity: the checks (the workspace the run
// names, the sandbox it asks for), the worker's catalog tools and the system prompt's parts. Every local activity
// is one more round of the first workflow task (~10 ms each on a dev server, bench/first-call.ts), and a start
// needed up to four. Recorded as one marker, so a replay starts the same way. The single activities stay
// registered: runs pinned to an older build still call them (docs/versioning.md).
import type { PromptParts } from '../shared/system-prompt';
import type { ToolList } from '../shared/wire';
import type { PromptRequest } from './system-prompt';

export interface PrepareRunRequest {
  /** Check that this worker may use it. */
  workspace?: string;
  /** Check that this worker can run commands in the bubblewrap sandbox. */
  sandbox?: true;
  /** List the worker's catalog tools (only these names, when given). */
  catalog?: { names?: string[] };
  /** Gather the system prompt's parts. */
  prompt: PromptRequest;
}

export interface PreparedRun {
  /** A check said no: the conversation ends before its first step (nothing else was asked). */
  refused?: { reason: 'BadInput' | 'SandboxUnavailable'; error: string };
  toolList?: ToolList;
  toolListError?: string;
  parts?: PromptParts;
  partsError?: string;
}

interface Parts {
  checkWorkspace(workspace: string): Promise<string | null>;
  checkSandbox(): Promise<string | null>;
  listTools(req: { names?: string[] }): Promise<ToolList>;
  buildSystemPrompt(req: PromptRequest): Promise<PromptParts>;
}

export function prepareRunActivity(a: Parts) {
  return async function prepareRun(req: PrepareRunRequest): Promise<PreparedRun> {
    if (req.workspace) {
      const why = await a.checkWorkspace(req.workspace).catch((err: unknown) => `workspace ${req.workspace} could not be checked: ${messageOf(err)}`);
      if (why) return { refused: { reason: 'BadInput', error: why } };
    }
    if (req.sandbox) {
      const why = await a.checkSandbox().catch((err: unknown) => `the sandbox could not be checked: ${messageOf(err)}`);
      if (why) return { refused: { reason: 'SandboxUnavailable', error: why } };
    }
    // Neither depends on the other: the tool list and the prompt's parts are gathered at once.
    const [list, parts] = await Promise.all([req.catalog ? settled(a.listTools(req.catalog)) : undefined, settled(a.buildSystemPrompt(req.prompt))]);
    return {
      ...(list && 'value' in list ? { toolList: list.value } : {}),
      ...(list && 'error' in list ? { toolListError: list.error } : {}),
      ...('value' in parts ? { parts: parts.value } : { partsError: parts.error }),
    };
  };
}

function settled<T>(p: Promise<T>): Promise<{ value: T } | { error: string }> {
  return p.then(
    (value) => ({ value }),
    (err: unknown) => ({ error: messageOf(err) }),
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
