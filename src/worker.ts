// A Hermes worker: runs conversation workflows and their model and tool activities on one task queue.
// Scale out by starting more of them against the same cluster.
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import path from 'node:path';
import { createActivities } from './activities';
import { faultsFromEnv, withFaults, type FaultConfig } from './activities/faults';
import type { ContextCache } from './activities/context';
import { cachedWorkflowBundle, workflowsPath } from './startup/bundle';
import { namespaceAttributeCheck } from './startup/usable-attributes';
import { workerDataConverter } from './codec';
import { loadProfiles, loadSecurityConfig, loadWebConfig, type ProfileSet } from './llm/profiles';
import { chooseAll, describeChoice } from './llm/auto-profile';
import { logger, setLogRedactor } from './observe/logger';
import { flushTracing, setTraceRedactor, workerTracingOptions } from './observe/tracing';
import { Redactor, type RedactConfig } from './security/redact';
import { TASK_QUEUE } from './shared/defaults';
import type { MemoryLimits } from './shared/memory';
import { defaultProcessDir, killOrphans, untrustedDir } from './tools/orphans';
import { parseSandboxSetting, resolveWorkerSandbox, type SandboxSetting } from './tools/sandbox';
import { readConfig } from './config/load';
import { catalogFromConfig, type ToolCatalog } from './tools/external';
import { publishCircuitStates } from './tools/http';
import { hermesHome } from './shared/paths';
import { skillsStoreName } from './skills/sources';
import { loadWebhookPolicy } from './schedules/webhook-policy';
import type { WebPolicy } from './tools/web_fetch/address-policy';
import { checkpointSettings } from './checkpoints/settings';
import type { CheckpointSettings } from './checkpoints/store';

export interface HermesWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  profiles?: ProfileSet;
  /** Default workspace for conversations that name none. */
  workspace?: string;
  /** Directories a conversation may name as its workspace (default: HERMES_WORKSPACE_ROOTS, else `workspace`). */
  workspaceRoots?: string[];
  /** Pre-bundled workflow code (tests and benchmarks bundle once); otherwise the cached bundle. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Context cache of the model activity (tests and benchmarks read its hit counts). */
  contextCache?: ContextCache;
  /**
   * Where terminal commands are written down while they run; on start the worker kills the ones left by
   * workers on this host that died (default: per user in the temp dir, or HERMES_PROCESS_DIR).
   */
  processDir?: string;
  /**
   * Temporal worker tuning passed through as is (e.g. workflowThreadPoolSize, maxConcurrentWorkflowTaskExecutions,
   * maxCachedWorkflows, maxConcurrentActivityTaskExecutions, shutdownGraceTime…); it overrides Hermes's defaults.
   */
  tuning?: WorkerTuning;
  /**
   * Worker variables terminal commands get besides the allow-list (PATH, HOME, LANG, LC_*, TERM, TZ, USER,
   * LOGNAME, SHELL, TMPDIR); added to HERMES_PASS_ENV and the config file's `passEnv`. NAME or PREFIX*.
   */
  passEnv?: string[];
  /** Extra patterns and literal values to redact from tool results, model replies and logs (added to the config file's `redact`). */
  redact?: RedactConfig;
  /**
   * Where `terminal` runs for conversations that do not choose (default: HERMES_SANDBOX, else `auto`): `bwrap`
   * (bubblewrap; the worker refuses to start without it), `auto` (bwrap when it works, else none with a
   * warning), `none`.
   */
  sandbox?: SandboxSetting;
  /** Sandboxed commands may use the network unless the conversation says otherwise (default: HERMES_SANDBOX_NETWORK=1). */
  sandboxNetwork?: boolean;
  /** The bubblewrap binary (default: HERMES_BWRAP_PATH, else `bwrap` on PATH). */
  bwrapPath?: string;
  /** Store limits of the memory scopes this worker creates (default: HERMES_MEMORY_NOTES_CHARS / HERMES_MEMORY_USER_CHARS, else 2,200 and 1,375). */
  memoryLimits?: Partial<MemoryLimits>;
  /** Custom, HTTP and MCP tools (default: built from the config file's `tools.modules`, `toolsets`…; started here). */
  catalog?: ToolCatalog;
  /**
   * Non-public addresses webhooks may be delivered to (default: HERMES_WEBHOOK_ALLOW_PRIVATE /
   * HERMES_WEBHOOK_ALLOW_HOSTS and the config file's schedules.webhookAllowPrivate / webhookAllowHosts).
   */
  webhookPolicy?: WebPolicy;
  /**
   * Runs as this version of a Worker Deployment, with conversations pinned to it (docs/versioning.md); absent:
   * unversioned. `hermes worker` sets it (src/versioning/fleet.ts); so can library code that deploys versions itself.
   */
  deploymentVersion?: WorkerDeploymentVersion;
  /** The skills store the skill tools and the system prompt use (default: HERMES_SKILLS_STORE, else the config's skills.store, else "default"). */
  skillsStore?: string;
  /** Fail this share of model and tool attempts on purpose (evals: src/activities/faults.ts); default HERMES_FAULTS / HERMES_FAULTS_SEED. */
  faults?: FaultConfig;
  /** Checkpoints before file-changing tool calls (`hermes rollback`); false: none. Default: HERMES_CHECKPOINT_* (src/checkpoints/settings.ts). */
  checkpoints?: CheckpointSettings | false;
}

/** The worker's catalog from the config file, loaded: a bad module fails the start with the file named. */
export async function loadCatalog(): Promise<ToolCatalog> {
  const loaded = readConfig();
  const catalog = catalogFromConfig(loaded?.config, loaded?.file, (msg) => logger.warn(msg));
  try {
    await catalog.start();
  } catch (err) {
    throw new Error(`custom tools from ${loaded?.file ?? 'the configuration'}: ${(err as Error).message}`);
  }
  return catalog;
}

/** The Temporal WorkerOptions a Hermes worker lets you tune; the rest (queue, activities, bundle) is Hermes's. */
export type WorkerTuning = Partial<
  Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'>
>;

export { workflowsPath };

export async function createHermesWorker(opts: HermesWorkerOptions): Promise<Worker> {
  // HERMES_PAYLOAD_KEY: encrypted payloads (src/codec); a bad key stops the worker here. `tuning.dataConverter` wins.
  const converter = workerDataConverter();
  const processDir = path.resolve(opts.processDir ?? (process.env.HERMES_PROCESS_DIR || defaultProcessDir()));
  sweepOrphans(processDir);
  const sandbox = await resolveWorkerSandbox({
    setting: parseSandboxSetting(opts.sandbox, 'sandbox'),
    network: opts.sandboxNetwork,
    bwrap: opts.bwrapPath,
  });
  if (sandbox.warning) logger.warn({ setting: sandbox.setting }, sandbox.warning);
  if (sandbox.isolationWarning) logger.warn({ isolation: 'none' }, sandbox.isolationWarning);
  // Secrets: what tools' processes may see, and the redactor every result, reply and log line passes through.
  const security = loadSecurityConfig({ passEnv: opts.passEnv, redact: opts.redact });
  loadWebConfig(); // a bad HERMES_WEB_ALLOW_HOSTS fails the start, not every web_fetch call
  if (!opts.webhookPolicy) loadWebhookPolicy(); // and a bad HERMES_WEBHOOK_ALLOW_HOSTS, not every delivery
  const redactor = new Redactor({ env: process.env, ...security.redact });
  setLogRedactor(redactor);
  setTraceRedactor(redactor);
  const catalog = opts.catalog ?? (await loadCatalog());
  // What this worker started, it stops when it stops: MCP servers of a catalog it loaded itself, and the file
  // its HTTP tools' circuit states are published in for `hermes tools` (another process).
  const release = [
    ...(opts.catalog ? [] : [() => catalog.close()]),
    ...(catalog.tools().some((t) => t.source === 'http') ? [publishCircuits()] : []),
  ];
  const releaseAll = async () => {
    for (const r of release.splice(0)) await r();
    await flushTracing(); // the last spans go out before the process may exit
  };
  try {
    const profiles = opts.profiles ?? (await detectedProfiles());
    const worker = await createWorker({ ...opts, profiles }, { catalog, converter, processDir, sandbox, passEnv: security.passEnv, redactor });
    const run = worker.run.bind(worker);
    worker.run = () => run().finally(releaseAll);
    return worker;
  } catch (err) {
    await releaseAll();
    throw err;
  }
}

/** One circuit-state file per process, however many workers it runs (tests, embedded mode): the last one out removes it. */
let publishing: { stop: () => void; workers: number } | undefined;
function publishCircuits(): () => Promise<void> {
  publishing ??= { stop: publishCircuitStates(hermesHome()), workers: 0 };
  publishing.workers++;
  return async () => {
    if (publishing && --publishing.workers === 0) {
      publishing.stop();
      publishing = undefined;
    }
  };
}

interface WorkerParts {
  catalog: ToolCatalog;
  converter: ReturnType<typeof workerDataConverter>;
  processDir: string;
  sandbox: Awaited<ReturnType<typeof resolveWorkerSandbox>>;
  passEnv: string[];
  redactor: Redactor;
}

async function createWorker(opts: HermesWorkerOptions, { catalog, converter, processDir, sandbox, passEnv, redactor }: WorkerParts): Promise<Worker> {
  const checkpoints = opts.checkpoints ?? checkpointSettings();
  const storage = (opts.tuning?.dataConverter ?? converter)?.externalStorage;
  const namespace = opts.namespace ?? 'default';
  // Asked now, so the first run's start does not wait for it.
  const attributes = namespaceAttributeCheck(opts.connection, namespace);
  void attributes.missing();
  const activities = createActivities({
    catalog,
    profiles: opts.profiles ?? loadProfiles(),
    workspace: path.resolve(opts.workspace ?? process.env.HERMES_WORKSPACE ?? process.cwd()),
    contextCache: opts.contextCache,
    processDir,
    sandbox,
    passEnv,
    redactor,
    ...(opts.workspaceRoots ? { workspaceRoots: opts.workspaceRoots } : {}),
    ...(opts.memoryLimits ? { memoryLimits: opts.memoryLimits } : {}),
    ...(opts.webhookPolicy ? { webhookPolicy: opts.webhookPolicy } : {}),
    payloadStore: Boolean(storage),
    ...(storage ? { payloadStoreThreshold: storage.payloadSizeThreshold } : {}),
    skillsStore: opts.skillsStore ?? skillsStoreName(),
    missingAttributes: () => attributes.missing(),
    ...(checkpoints ? { checkpoints } : {}),
  });
  // OTEL_EXPORTER_OTLP_ENDPOINT set: activity interceptors, the workflow spans' sink and the traced bundle
  // (src/observe/tracing.ts); unset: none of it.
  const tracing = workerTracingOptions();
  return Worker.create({
    connection: opts.connection,
    namespace,
    taskQueue: opts.taskQueue ?? process.env.HERMES_TASK_QUEUE ?? TASK_QUEUE,
    workflowBundle: opts.workflowBundle ?? (await cachedWorkflowBundle(tracing.sinks ? 'traced' : undefined)),
    activities: withFaults(activities, opts.faults ?? faultsFromEnv()),
    ...tracing,
    maxConcurrentActivityTaskExecutions: 100,
    // Cancellation (an interrupt) reaches a running tool or model call in the response to its next
    // heartbeat, so heartbeats go out every 250 ms instead of the default 30-60 s throttle: a tool's
    // process is killed well within a second of the interrupt. HERMES_HEARTBEAT_MS trades that for fewer RPCs.
    maxHeartbeatThrottleInterval: heartbeatMs(),
    defaultHeartbeatThrottleInterval: heartbeatMs(),
    // Gives running tools a moment to notice cancellation and kill their processes on shutdown.
    shutdownGraceTime: '5 seconds',
    ...(converter ? { dataConverter: converter } : {}),
    // Pinned: a run finishes on the build it started on; it moves to a newer one only by continuing as new
    // (src/workflows/engine/upgrade.ts). Memory scopes declare AUTO_UPGRADE themselves.
    ...(opts.deploymentVersion
      ? { workerDeploymentOptions: { useWorkerVersioning: true, version: opts.deploymentVersion, defaultVersioningBehavior: 'PINNED' as const } }
      : {}),
    ...opts.tuning,
  });
}

/**
 * A worker that died (SIGKILL, OOM, power) could not stop its terminal commands; their conversations have
 * already been told the outcome is unknown. Kill what is left of them before taking new work.
 */
function sweepOrphans(dir: string): void {
  const why = untrustedDir(dir);
  if (why) {
    logger.warn({ dir }, `terminal commands are not written down for the crash clean-up: ${dir}: ${why}`);
    return;
  }
  const { killed } = killOrphans(dir);
  for (const r of killed) {
    logger.warn(
      { pgid: r.pgid, deadWorkerPid: r.owner, workflowId: r.workflowId, callId: r.callId },
      `killed a terminal command left running by a worker that died: ${r.command}`,
    );
  }
}

/**
 * The configured profiles, each tuned to what its local server says it serves (src/llm/auto-profile.ts); profiles a
 * caller passes are used as given.
 */
async function detectedProfiles(): Promise<ProfileSet> {
  const { set, choices } = await chooseAll(loadProfiles());
  for (const c of choices) if (c.reasons.length) logger.info({ profile: c.profile.name, facts: c.facts }, `model ${describeChoice(c)}`);
  return set;
}

function heartbeatMs(): number {
  const v = Number(process.env.HERMES_HEARTBEAT_MS);
  return Number.isFinite(v) && v >= 50 ? v : 250;
}
