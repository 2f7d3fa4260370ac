// Shared by the commands: connecting (with an in-process worker in embedded mode), usage errors, option
// checks and the one-line form of a step.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Hermes } from '../client';
import { closeWorkerConnection, clusterConfigured, connectWorker } from '../startup/connection';
import { installRuntimeLogger, logToFile } from '../observe/logger';
import { hermesHome } from '../shared/paths';
import { lazyModule } from '../shared/lazy-module';
import { MAX_ITERATIONS_CAP, type ChildView, type StepRecord } from '../shared/contract';
import { workspaceRoots } from '../tools/roots';
import { EXIT_CODES, installStopHandlers, sayStopped, stopping, stoppedBy } from './signals';

import { UsageError } from './usage-error';

export { UsageError };

/**
 * Connects; in embedded mode also runs a worker in this process for as long as fn runs. That worker is the
 * user's own, so a `workspace` typed on the command line is one of its workspace roots (a cluster's workers
 * decide theirs with HERMES_WORKSPACE_ROOTS). A function gives it once connected (a scheduled task's
 * workspace, read from its schedule); it runs in cluster mode too, so its errors are the same in both.
 *
 * A stop signal (SIGTERM; SIGINT unless the command claimed it) ends fn's wait: the command's stop message is
 * said (src/cli/signals.ts), and the worker, the connection and an embedded server this started are stopped as
 * after any command; the exit code is 128 + the signal's number.
 */
export async function withHermes(
  fn: (hermes: Hermes) => Promise<number>,
  opts: { workspace?: string | ((hermes: Hermes) => Promise<string | undefined>) } = {},
): Promise<number> {
  installStopHandlers();
  // The SDK's runtime (and its logger) is for the in-process worker: a cluster's client needs none.
  if (!clusterConfigured()) {
    // That worker refuses unusable model settings; said now, not after seconds of starting the embedded server.
    const { loadProfiles } = await lazyModule(
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- see src/shared/lazy-module.ts
      () => require('../llm/profiles') as typeof import('../llm/profiles'),
      () => import('../llm/profiles'),
    );
    loadProfiles();
    embeddedLogToFile();
    installRuntimeLogger(undefined, { signals: false });
  }
  const hermes = await Hermes.connect();
  const target = hermes.target!;
  try {
    const stopped = stoppedBy();
    if (stopped) return EXIT_CODES[stopped];
    // At a stop the command's calls are cut by the connection's close (signals.ts ignores the one error a gRPC
    // retry timer then throws). Not `withAbortSignal(stopSignal, …)`: the SDK adds an abort listener per call and
    // never removes it, so a long `hermes run` gathered thousands (measured: +3.6 a second while following).
    const command = () => fn(hermes);
    const workspace = typeof opts.workspace === 'function' ? await opts.workspace(hermes) : opts.workspace;
    if (!target.embedded) return await untilStopped(command());
    const connection = await connectWorker(target);
    // Versioned as `hermes worker` is (src/versioning/fleet.ts): on an embedded server that also has `hermes worker`
    // processes, an unversioned worker would get no new conversation once a build is current.
    // Loaded when a worker starts: commands that only talk to the server do not pay for the worker code.
    const { startWorkerFleet } = await lazyModule(
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- see src/shared/lazy-module.ts
      () => require('../versioning/fleet') as typeof import('../versioning/fleet'),
      () => import('../versioning/fleet'),
    );
    const w = await startWorkerFleet({
      connection,
      client: hermes.client,
      namespace: target.namespace,
      taskQueue: hermes.taskQueue,
      ...(workspace ? { workspaceRoots: [...workspaceRoots(path.resolve(process.env.HERMES_WORKSPACE ?? process.cwd())), workspace] } : {}),
      // A stop must be over within seconds (signals.ts): calls in flight get a second to finish, then they are
      // cancelled (a terminal command's process group is killed) and their attempts fail, to be retried by the
      // next worker.
      tuning: { shutdownGraceTime: '1 second' },
    });
    try {
      return await w.runUntil(untilStopped(command()));
    } finally {
      await closeWorkerConnection(connection);
    }
  } finally {
    await hermes.close();
  }
}

/** How long a stopped command may take to unwind (its calls cancelled) before the clean-up goes on anyway. */
const UNWIND_MS = 1_000;

/** The command's exit code, or 128 + the signal's number once a stop signal has come first. */
async function untilStopped(work: Promise<number>): Promise<number> {
  // After a stop the command's promise is abandoned: it may still settle, or fail as its calls are cancelled.
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  await Promise.race([settled, stopping()]);
  const sig = stoppedBy();
  if (!sig) return work;
  sayStopped(sig);
  // What the command does while unwinding is done before the connection and the embedded server go.
  await Promise.race([settled, sleep(UNWIND_MS, undefined, { ref: false })]);
  return EXIT_CODES[sig];
}

/**
 * Embedded mode: the in-process worker's log lines (Hermes's and the SDK's: an activity retried, a workflow task
 * failed) go to `worker.log` in the state directory, next to the server's log, instead of onto the run display
 * as raw JSON. The path is said once, when the first warning or error is written: a clean run prints nothing
 * extra, and a run with something worth reading points at it when it happens (the display shows retries itself).
 */
function embeddedLogToFile(): void {
  logToFile(path.join(hermesHome(), 'worker.log'), (file) => {
    process.stderr.write(`(the in-process worker logged a warning; its log is ${file})\n`);
  });
}

/** The value, or a usage error when it is missing or empty. */
export function need<T>(v: T | undefined, message: string): T {
  if (v === undefined || v === '') throw new UsageError(message);
  return v;
}

/** A workspace given on the command line is made absolute here, where the user typed it. */
export function checkedWorkspace(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  const abs = path.resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new UsageError(`--workspace ${dir}: no such directory`);
  return abs;
}

/** `--max-iterations N`: 1 to 1,000,000 steps per turn, or 0 for no step cap. */
export function maxIterationsOption(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!raw.trim() || !(Number.isInteger(n) && n >= 0 && n <= MAX_ITERATIONS_CAP))
    throw new UsageError(`--max-iterations must be a whole number from 0 (no step cap) to ${MAX_ITERATIONS_CAP}, got "${raw}"`);
  return n;
}

/**
 * One step line. A model step also carries its model-step number (`modelStep`, counted over model calls only):
 * the N that `hermes inspect --step N` takes and the step column of `inspect` shows.
 */
export function formatStep(s: StepRecord, modelStep?: number): string {
  const mark = s.ok ? ' ' : '!';
  // A sub-agent starting or ending (delegate_task): indented under the call that started it.
  if (s.kind === 'note' && s.name === 'agent') return `${mark} [${String(s.step).padStart(3)}]       ${s.summary}`;
  const ordinal = modelStep !== undefined && s.name !== 'empty' ? ` (model step ${modelStep})` : '';
  return `${mark} [${String(s.step).padStart(3)}] ${s.kind.padEnd(5)} ${s.name}${ordinal}: ${s.summary}`;
}

/**
 * One sub-agent of a conversation, indented under it: `hermes status` shows the children of its latest
 * delegate_task call. A waiting child's approval is listed among the parent's (`parentId` answers it).
 */
export function formatChild(c: ChildView, parentId?: string): string {
  const line = `  ↳ ${c.workflowId} [${c.status}] iteration ${c.iteration} · tokens ${c.totalTokens} — ${c.goal.split('\n')[0]!.slice(0, 100)}`;
  return c.status === 'waiting'
    ? `${line}\n      waiting for an approval: hermes approve ${parentId ?? c.workflowId} CALL_ID (call ids: hermes status ${parentId ?? c.workflowId})`
    : line;
}
