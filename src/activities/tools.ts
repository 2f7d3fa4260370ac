// The tool activity: runs one tool handler against the workspace. A tool's own failure (bad path, text not
// found, non-zero exit…) is a result the model reads; only cancellation propagates as an error.
import { Context } from '@temporalio/activity';
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ToolCallInput, ToolCallResult, ToolList } from '../shared/wire';
import type { ToolCatalog } from '../tools/external';
import type { ToolHandler } from '../tools/handler';
import { BUILTIN_HANDLERS } from '../tools/handler-registry';
import { finishToolOutput } from '../tools/output';
import { defaultProcessDir } from '../tools/orphans';
import { TOOL_SEARCH, toolSpec } from '../tools/registry';
import { searchTools } from '../tools/tool_search/search';
import { toolSearchSpec } from '../tools/tool_search/spec';
import { checkWorkspaceDir, workspaceRoots } from '../tools/roots';
import { bwrapBinary, probeBwrap, sandboxFor, type WorkerSandbox } from '../tools/sandbox';
import type { Redactor } from '../security/redact';
import type { MemoryLimits } from '../shared/memory';
import type { ContextCache } from './context';
import { findExternal, runExternal } from './external-tools';
import { observeToolCall } from '../observe/step';
import { withheldRefusal } from '../tools/withheld';
import { placeholdersIn } from '../shared/redaction-types';
import { callCheckpoints } from '../checkpoints/activity';
import { CheckpointStore, type CheckpointSettings } from '../checkpoints/store';

export interface ToolDeps {
  /** Default workspace when the conversation names none. */
  workspace: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler has its own argument type
  handlers?: Record<string, ToolHandler<any>>;
  /** Shared with the model activity: tool outputs produced here spare it a context query. */
  contextCache?: ContextCache;
  /** Where the terminal tool writes down running commands for the crash clean-up (default: per user in tmp). */
  processDir?: string;
  /** Directories a conversation may name as its workspace (default: HERMES_WORKSPACE_ROOTS, else `workspace`). */
  workspaceRoots?: string[];
  /** Where `terminal` runs when the conversation does not say (createHermesWorker resolves it); absent: no sandbox. */
  sandbox?: WorkerSandbox;
  /** Worker variables passed to the processes tools start, besides the allow-list (src/tools/env.ts). */
  passEnv?: string[];
  /** Applied to every result before it leaves the activity (createActivities builds it from the worker's env). */
  redactor?: Redactor;
  /** Tools from custom modules, HTTP and MCP (src/tools/external.ts); absent: built-ins only. */
  catalog?: ToolCatalog;
  /** Store limits of a memory scope this worker's memory tool creates (default: HERMES_MEMORY_*_CHARS, else 2,200 and 1,375). */
  memoryLimits?: Partial<MemoryLimits>;
  /** The skills store the skill tools use (default: HERMES_SKILLS_STORE, else the config's skills.store, else "default"). */
  skillsStore?: string;
  /** Checkpoints of the workspace before file-changing calls (src/checkpoints/); absent: none. */
  checkpoints?: CheckpointSettings;
}

/** The worker cancelled this attempt because it is shutting down (Worker.shutdown past its shutdownGraceTime). */
function workerShuttingDown(ctx: Context): boolean {
  const reason: unknown = ctx.cancellationSignal.reason;
  return ctx.cancellationDetails?.workerShutdown === true || (reason instanceof Error && reason.message === 'WORKER_SHUTDOWN');
}

export function stoppedByShutdown(tool: string): string {
  return (
    `Error: ${tool} was stopped before it finished: the worker running it shut down and its grace period for running ` +
    'tools ran out. It may have partly run. Check the current state before running it again.'
  );
}

export function createToolActivities(deps: ToolDeps) {
  const handlers = deps.handlers ?? BUILTIN_HANDLERS;
  const processDir = deps.processDir ?? defaultProcessDir();
  const roots = deps.workspaceRoots ?? workspaceRoots(deps.workspace);
  const checkpointStore = deps.checkpoints ? new CheckpointStore(deps.checkpoints) : undefined;

  /** Run when a conversation that names a workspace starts: null when this worker may use it. */
  async function checkWorkspace(workspace: string): Promise<string | null> {
    const r = await checkWorkspaceDir(workspace, roots);
    return 'error' in r ? r.error : null;
  }
  // The roots do not change while the worker runs: one check per workspace (its real path).
  const verdicts = new Map<string, string | null>();
  async function outsideRoots(real: string): Promise<string | null> {
    if (!verdicts.has(real)) verdicts.set(real, await checkWorkspace(real));
    return verdicts.get(real)!;
  }

  /** One tool call, in its span, counted and logged (src/observe/step.ts). */
  async function runTool(input: ToolCallInput): Promise<ToolCallResult> {
    const ctx = Context.current();
    const exec = ctx.info.workflowExecution;
    const external = input.hash !== undefined ? findExternal(deps.catalog, input) : undefined;
    const info = {
      workflowId: exec?.workflowId ?? '',
      runId: exec?.runId ?? '',
      name: input.name,
      callId: input.callId,
      attempt: ctx.info.attempt,
      source: typeof external === 'object' ? external.source : 'builtin',
      ...(typeof external === 'object' ? { toolset: external.toolset } : {}),
      args: input.args,
      redactor: deps.redactor,
      cancelled: () => ctx.cancellationSignal.aborted,
    };
    return observeToolCall(info, () => callTool(input));
  }

  async function callTool(input: ToolCallInput): Promise<ToolCallResult> {
    const ctx = Context.current();
    const handler = handlers[input.name];
    const spec = toolSpec(input.name);
    const external = input.hash !== undefined ? findExternal(deps.catalog, input) : undefined;
    if (typeof external === 'string') return plain(false, external);
    if (!external && spec?.name === TOOL_SEARCH) return searchResult(input);
    if (!external && (!handler || !spec)) return plain(false, `Error: no tool named "${input.name}" on this worker.`);
    let args: unknown = input.args;
    if (external) {
      const bad = deps.catalog!.validate(external, input.args);
      if (bad) return plain(false, `Error: invalid arguments for ${input.name}: ${bad}. Fix the arguments and call it again.`);
    } else {
      const parsed = spec!.schema.safeParse(input.args);
      if (!parsed.success) return plain(false, `Error: invalid arguments for ${input.name}: ${parsed.error.message}`);
      args = parsed.data;
    }
    // Before the workspace, the checkpoint and the handler: a placeholder is never written where a secret belongs.
    if (external ? !external.readOnly : spec!.writesVerbatim) {
      const withheld = placeholdersIn(args);
      if (withheld.length) return plain(false, withheldRefusal(input.name, withheld));
    }
    let workspace: string;
    try {
      workspace = await resolveWorkspace(path.resolve(input.workspace ?? deps.workspace));
    } catch {
      return plain(false, `Error: the workspace ${input.workspace ?? deps.workspace} does not exist on this worker.`);
    }
    // Checked at the start too; again here because another worker, with other roots, may run this call.
    const refused = input.workspace ? await outsideRoots(workspace) : null;
    if (refused) return plain(false, `Error: ${refused}.`);
    const sandbox = sandboxFor(deps.sandbox, input.sandbox);
    if (input.name === 'terminal' && sandbox.mode === 'bwrap') {
      // Never a silent downgrade: this worker may not be the one that checked at the start.
      const probe = await probeBwrap(sandbox.bwrap);
      if (!probe.ok)
        return plain(false, `Error: not run: this conversation runs commands in the bubblewrap sandbox and this worker has none: ${probe.reason}.`);
    }
    let text: string;
    let ok = true;
    // Heartbeat details leave the worker too (the Web UI's pending-activity card; the history, when the call
    // times out): redacted like results. A handler that cuts text for them redacts first, with `redact`.
    const redactor = deps.redactor;
    const heartbeat = (d?: unknown) => ctx.heartbeat(redactor && d !== undefined ? redactor.deep(d) : d);
    const checkpoints = external ? undefined : callCheckpoints(checkpointStore, ctx, { ...input, args: args as Record<string, unknown>, workspace });
    const checkpoint = await checkpoints?.before();
    try {
      if (external) ({ text, ok } = await runExternal(external, args as Record<string, unknown>, workspace, input.callId, heartbeat));
      else
        text = await handler!(args, {
          workspace,
          signal: ctx.cancellationSignal,
          heartbeat,
          ...(redactor ? { redact: (t: string) => redactor.text(t) } : {}),
          terminalTimeoutSec: input.terminalTimeoutSec,
          callId: input.callId,
          processDir,
          sandbox,
          passEnv: deps.passEnv,
          workflowId: ctx.info.workflowExecution?.workflowId,
          temporal: () => ({ client: ctx.client, taskQueue: ctx.info.taskQueue }),
          ...(input.skillsStore || deps.skillsStore ? { skillsStore: input.skillsStore ?? deps.skillsStore } : {}),
          ...(spec!.cluster
            ? {
                cluster: {
                  client: ctx.client,
                  taskQueue: ctx.info.taskQueue,
                  conversation: input.conversation,
                  memoryLimits: deps.memoryLimits,
                  redactor: deps.redactor,
                },
              }
            : {}),
        });
    } catch (err) {
      if (ctx.cancellationSignal.aborted) {
        // The worker is shutting down and the grace period for running tools ran out (SIGTERM, `hermes worker
        // --grace`): the handler has stopped the tool. One that is not retried ends with a result that says so,
        // recorded like any other, and the conversation goes on on another worker at once. Others fail the
        // attempt, and the server retries them there.
        if (external || spec!.idempotent || !workerShuttingDown(ctx)) throw err;
        return plain(false, stoppedByShutdown(input.name));
      }
      // A catalog tool's failure other than ToolResultError is an outage Temporal retries (the failure is recorded: redacted).
      if (external) throw deps.redactor && err instanceof Error ? deps.redactor.error(err) : err;
      ok = false;
      text = `Error: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      await checkpoints?.after();
    }
    const workflowId = ctx.info.workflowExecution?.workflowId;
    const out = await finishToolOutput(text, { limit: input.outputLimit, workspace, callId: input.callId, workflowId, redactor: deps.redactor });
    // Redacted: the cache must hold exactly what the workflow records, or its digest check fails.
    if (workflowId) deps.contextCache?.noteToolOutput(workflowId, input.callId, out.content);
    return { ok, ...out, ...(checkpoint ? { checkpoint } : {}) };
  }

  /**
   * tool_search: ranks the tools the conversation offers but does not show (their names in `searchable`; built-in
   * descriptions from the bundle, catalog ones from this worker's catalog). What it found is in the result, which
   * history records: the workflow shows those tools from then on, and a replay reads the same list.
   */
  function searchResult(input: ToolCallInput): ToolCallResult {
    const parsed = toolSearchSpec.schema.safeParse(input.args);
    if (!parsed.success) return plain(false, `Error: invalid arguments for ${input.name}: ${parsed.error.message}`);
    const candidates = (input.searchable ?? []).flatMap((name) => {
      const description = toolSpec(name)?.description ?? deps.catalog?.currentTool(name)?.description;
      return description === undefined ? [] : [{ name, description }];
    });
    const { found, text } = searchTools(parsed.data.query, candidates);
    return { ...plain(true, text), ...(found.length ? { found } : {}) };
  }

  // realpath of a workspace per call costs more than a small tool; remember it, but re-check existence.
  const realpaths = new Map<string, string>();
  async function resolveWorkspace(dir: string): Promise<string> {
    const known = realpaths.get(dir);
    if (known && existsSync(known)) return known;
    const real = await realpath(dir);
    realpaths.set(dir, real);
    return real;
  }

  /** Run when a conversation asks for the bubblewrap sandbox: null when this worker can run commands in it. */
  async function checkSandbox(): Promise<string | null> {
    // Also on a worker whose default is `none`: the run chose the sandbox, and bwrap may well work here.
    const probe = await probeBwrap(deps.sandbox?.bwrap ?? bwrapBinary());
    return probe.ok ? null : `the run asks for the bubblewrap sandbox and this worker cannot provide it: ${probe.reason}`;
  }

  /** Local activity at a conversation's start: the catalog tools it offers (recorded in its history). */
  async function listTools(req: { names?: string[] }): Promise<ToolList> {
    return deps.catalog ? deps.catalog.list(req.names) : { tools: [], digest: '' };
  }

  return { runTool, checkWorkspace, checkSandbox, listTools };
}

function plain(ok: boolean, content: string): ToolCallResult {
  return { ok, content, size: content.length, truncated: false };
}
