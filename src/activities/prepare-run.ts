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
  prompt?: PromptRequest;
}

export interface PreparedRun {
  /** A check said no: the conversation ends before its first step (nothing else was asked). */
  refused?: { reason: 'BadInput' | 'SandboxUnavailable'; error: string };
  toolList?: ToolList;
  toolListError?: string;
  parts?: PromptParts;
  partsError?: string;
  /**
   * Search attributes the namespace does not have (or has with another type): the run must not set them. Absent when
   * it has them all, or when the worker could not ask (src/startup/usable-attributes.ts).
   */
  missingAttributes?: string[];
}

interface Parts {
  checkWorkspace(workspace: string): Promise<string | null>;
  checkSandbox(): Promise<string | null>;
  listTools(req: { names?: string[] }): Promise<ToolList>;
  buildSystemPrompt(req: PromptRequest): Promise<PromptParts>;
  /** The namespace's missing search attributes (cached by the worker); undefined when unknown. */
  missingAttributes?(): Promise<string[] | undefined>;
}

/**
 * The tool list and the prompt's parts together get this long (the local activity's timeout is 30 s): a part that
 * hangs (a memory read, an MCP server) becomes a note, never a timeout of the whole that would read as a failed check.
 */
const PARTS_DEADLINE_MS = 20_000;
/** A part that throws is tried again after these pauses, as its own local activity's retries did. */
const RETRY_PAUSES_MS = [1_000, 2_000];

export function prepareRunActivity(a: Parts, opts: { deadlineMs?: number; pausesMs?: number[] } = {}) {
  return async function prepareRun(req: PrepareRunRequest): Promise<PreparedRun> {
    // Asked beside the checks; a refused run sets its status too, so it needs the answer as much as one that goes on.
    const asked = a.missingAttributes?.().catch(() => undefined);
    const attributes = async () => {
      const missing = (await asked) ?? [];
      return missing.length ? { missingAttributes: missing } : {};
    };
    if (req.workspace) {
      const why = await a.checkWorkspace(req.workspace).catch((err: unknown) => `workspace ${req.workspace} could not be checked: ${messageOf(err)}`);
      if (why) return { refused: { reason: 'BadInput', error: why }, ...(await attributes()) };
    }
    if (req.sandbox) {
      const why = await a.checkSandbox().catch((err: unknown) => `the sandbox could not be checked: ${messageOf(err)}`);
      if (why) return { refused: { reason: 'SandboxUnavailable', error: why }, ...(await attributes()) };
    }
    // Neither depends on the other: the tool list and the prompt's parts are gathered at once.
    const limitMs = opts.deadlineMs ?? PARTS_DEADLINE_MS;
    const within = { deadline: Date.now() + limitMs, late: `no answer within ${limitMs / 1000} s`, pauses: opts.pausesMs ?? RETRY_PAUSES_MS };
    const catalog = req.catalog;
    const prompt = req.prompt;
    const [list, parts] = await Promise.all([
      catalog ? settled(() => a.listTools(catalog), within) : undefined,
      prompt ? settled(() => a.buildSystemPrompt(prompt), within) : undefined,
    ]);
    return {
      ...(await attributes()),
      ...(list && 'value' in list ? { toolList: list.value } : {}),
      ...(list && 'error' in list ? { toolListError: list.error } : {}),
      ...(parts && 'value' in parts ? { parts: parts.value } : {}),
      ...(parts && 'error' in parts ? { partsError: parts.error } : {}),
    };
  };
}

/** `fn`'s value, tried again after each pause while it throws, or its last error; `late` when the deadline passes. */
async function settled<T>(
  fn: () => Promise<T>,
  { deadline, late: lateError, pauses }: { deadline: number; late: string; pauses: number[] },
): Promise<{ value: T } | { error: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ error: string }>((resolve) => {
    timer = setTimeout(() => resolve({ error: lateError }), deadline - Date.now());
  });
  const tries = (async (): Promise<{ value: T } | { error: string }> => {
    for (let i = 0; ; i++) {
      try {
        return { value: await fn() };
      } catch (err) {
        const pause = pauses[i];
        if (pause === undefined || Date.now() + pause >= deadline) return { error: messageOf(err) };
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  })();
  try {
    return await Promise.race([tries, late]);
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
