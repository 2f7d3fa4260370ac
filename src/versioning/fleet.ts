// What `hermes worker` (and the in-process worker of embedded mode) runs: a Worker of this build, as a version of
// the task queue's Worker Deployment, made current when it is the newest build; plus one Worker per kept older
// build that still has conversations pinned to it, stopped once they have drained or moved (docs/versioning.md).
// Where the server cannot version workers, one unversioned Worker, and a line that says so.
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildId as sourceBuildId, cachedWorkflowBundle } from '../startup/bundle';
import { tracingConfigured } from '../observe/tracing';
import { logger } from '../observe/logger';
import { TASK_QUEUE } from '../shared/defaults';
import { createHermesWorker, loadCatalog, type HermesWorkerOptions } from '../worker';
import { dropBuild, keepBuild, keptBuilds, keptBundlePath } from './builds';
import {
  deploymentName,
  describeDeployment,
  nudgeIdleChats,
  openPinnedRuns,
  setCurrent,
  shouldBecomeCurrent,
  versioningMode,
  versioningUnsupported,
  waitForBuild,
  type DeploymentView,
  type VersioningMode,
} from './deployment';

export interface FleetOptions extends HermesWorkerOptions {
  /** For the deployment API and visibility (the same namespace as `connection`). */
  client: Client;
  /** Default: HERMES_VERSIONING, else `auto`. */
  versioning?: VersioningMode;
  /** Default: HERMES_DEPLOYMENT, else the task queue's name. */
  deployment?: string;
  /** Where kept builds live (`<home>/builds`). Default: HERMES_HOME. */
  home?: string;
  /** Where one-line notices go (a kept build served, drained; running unversioned). Default: the logger. */
  say?: (line: string) => void;
  /** How often the kept builds' pinned runs are counted (default HERMES_DRAIN_CHECK_SEC, else 60 s). */
  drainCheckMs?: number;
}

export interface WorkerFleet {
  /** The version this code runs as; undefined when unversioned. */
  readonly version?: WorkerDeploymentVersion;
  /** How this worker is versioned, for its start line. */
  readonly summary: string;
  /** Older builds served here now (their pinned runs). */
  servedBuilds(): string[];
  /** Each Worker's state by build ('' when unversioned): RUNNING while it polls; readiness reads it. */
  states(): Record<string, string>;
  /** Settles when every Worker has stopped: after shutdown(), or rejected when one of them failed. */
  readonly done: Promise<void>;
  shutdown(): void;
  /** Runs until `p` settles, then shuts down (as Worker.runUntil). */
  runUntil<T>(p: Promise<T>): Promise<T>;
}

export async function startWorkerFleet(opts: FleetOptions): Promise<WorkerFleet> {
  const say = opts.say ?? ((line: string) => logger.info(line));
  const mode = opts.versioning ?? versioningMode();
  const taskQueue = opts.taskQueue ?? process.env.HERMES_TASK_QUEUE ?? TASK_QUEUE;
  const deployment = opts.deployment ?? deploymentName(taskQueue);
  const namespace = opts.client.options.namespace;
  const base = { ...opts, taskQueue };

  const why = mode === 'off' ? 'HERMES_VERSIONING=off' : await versioningUnsupported(opts.client.workflowService, namespace, deployment);
  if (why) {
    if (mode !== 'off') say(`worker versioning unavailable: ${why}; running unversioned (an upgrade replays open conversations on the new code)`);
    const fleet = new Fleet(opts, say, `unversioned (${mode === 'off' ? why : 'the server cannot version workers'})`);
    fleet.add('', await createHermesWorker(base));
    return fleet;
  }

  const { codePath, build, runPath } = await thisBuild(opts);
  const version = { deploymentName: deployment, buildId: build };
  // The plain bundle is kept: a worker that serves this build later may run without tracing (no span sink).
  keepBuild(deployment, build, codePath, opts.home);
  // One catalog for every Worker of the fleet: MCP servers are started once, and closed when the fleet stops.
  const catalog = opts.catalog ?? (await loadCatalog());
  const fleet = new Fleet({ ...base, catalog }, say, '', version, opts.catalog ? undefined : () => catalog.close());
  try {
    fleet.add(build, await createHermesWorker({ ...base, catalog, workflowBundle: { codePath: runPath }, deploymentVersion: version }));
    const view = await settleCurrent(opts.client, version, mode, say);
    fleet.current = view?.current;
    fleet.summary = `build ${build} of deployment ${deployment}, ${currentText(view, version, mode)}`;
    // Visibility can fail where the deployment API works (a lagging or restricted cluster): said, not fatal.
    const notFatal = (what: string) => (err: unknown) => say(`could not ${what}: ${(err as Error).message}`);
    await fleet.serveKept(view).catch(notFatal('look for older builds with pinned conversations'));
    if (fleet.current === build) await fleet.nudge().catch(notFatal('ask idle conversations on older builds to move'));
    fleet.watch(opts.drainCheckMs ?? drainCheckMs());
  } catch (err) {
    fleet.shutdown();
    await fleet.done.catch(() => undefined);
    throw err;
  }
  return fleet;
}

function currentText(view: DeploymentView | undefined, v: WorkerDeploymentVersion, mode: VersioningMode): string {
  if (view?.current === v.buildId) return 'current';
  const setIt = `temporal worker deployment set-current-version --deployment-name ${v.deploymentName} --build-id ${v.buildId}`;
  if (!view?.current) return `not current, and no build is: new conversations wait until one is (\`${setIt}\`)`;
  return `not current: new conversations go to build ${view.current}${mode === 'manual' ? ` (HERMES_VERSIONING=manual; \`${setIt}\`)` : ''}`;
}

/**
 * The bundle of this build (kept for later workers), the one this worker runs (with the tracing interceptors when
 * tracing is on: the same workflow code, so the same build) and the build id: the sources' hash, or a given
 * bundle's content hash.
 */
async function thisBuild(opts: FleetOptions): Promise<{ codePath: string; build: string; runPath: string }> {
  const given = opts.workflowBundle;
  if (given && 'codePath' in given && given.codePath) {
    return { codePath: given.codePath, build: contentHash(readFileSync(given.codePath)), runPath: given.codePath };
  }
  if (given && 'code' in given && given.code) {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'hermes-bundle-')), 'workflows.js');
    writeFileSync(file, given.code);
    return { codePath: file, build: contentHash(Buffer.from(given.code)), runPath: file };
  }
  const build = sourceBuildId();
  const { codePath } = await cachedWorkflowBundle(undefined, build);
  return { codePath, build, runPath: tracingConfigured() ? (await cachedWorkflowBundle('traced', build)).codePath : codePath };
}

function contentHash(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex').slice(0, 16);
}

/**
 * Waits until the server lists this build (its Worker's first poll registers it) and, in `auto` mode, makes it
 * current when it is the newest build. A failure here is said and the worker goes on serving what is pinned to it.
 */
async function settleCurrent(
  client: Client,
  v: WorkerDeploymentVersion,
  mode: VersioningMode,
  say: (l: string) => void,
): Promise<DeploymentView | undefined> {
  const rpc = client.workflowService;
  const ns = client.options.namespace;
  try {
    let view = await waitForBuild(rpc, ns, v);
    if (mode === 'auto' && shouldBecomeCurrent(view, v.buildId)) {
      await setCurrent(rpc, ns, v, `hermes worker ${os.hostname()} ${process.pid}`);
      view = (await describeDeployment(rpc, ns, v.deploymentName)) ?? view;
    }
    return view;
  } catch (err) {
    say(`could not make build ${v.buildId} current: ${(err as Error).message}`);
    return describeDeployment(rpc, ns, v.deploymentName).catch(() => undefined);
  }
}

function drainCheckMs(): number {
  const v = Number(process.env.HERMES_DRAIN_CHECK_SEC);
  return Number.isFinite(v) && v > 0 ? v * 1000 : 60_000;
}

interface Running {
  worker: Worker;
  running: Promise<void>;
}

class Fleet implements WorkerFleet {
  private readonly workers = new Map<string, Running>();
  private stopping = false;
  private timer?: NodeJS.Timeout;
  private failed?: unknown;
  private settle!: { resolve: () => void; reject: (e: unknown) => void };
  readonly done: Promise<void>;
  current?: string;
  /** Builds with pinned runs whose bundle is not here: said once each. */
  private readonly missing = new Set<string>();

  constructor(
    private readonly opts: FleetOptions,
    private readonly say: (line: string) => void,
    public summary: string,
    readonly version?: WorkerDeploymentVersion,
    private readonly release?: () => Promise<void>,
  ) {
    this.done = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
    this.done.catch(() => undefined); // observed by callers
  }

  servedBuilds(): string[] {
    return [...this.workers.keys()].filter((b) => b && b !== this.version?.buildId);
  }

  states(): Record<string, string> {
    return Object.fromEntries([...this.workers].map(([build, { worker }]) => [build, worker.getState()]));
  }

  add(build: string, worker: Worker): void {
    const running = worker.run().then(
      () => this.ended(build),
      (err: unknown) => {
        this.failed ??= err;
        this.shutdown();
        this.ended(build);
      },
    );
    this.workers.set(build, { worker, running });
  }

  private ended(build: string): void {
    this.workers.delete(build);
    if (this.workers.size > 0 || !(this.stopping || this.failed)) return;
    void (this.release?.() ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => (this.failed ? this.settle.reject(this.failed) : this.settle.resolve()));
  }

  shutdown(): void {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    if (this.workers.size === 0) this.ended('');
    for (const { worker } of this.workers.values()) {
      try {
        worker.shutdown();
      } catch {
        // not running (yet, or any more)
      }
    }
  }

  async runUntil<T>(p: Promise<T>): Promise<T> {
    const stopped = this.done.then(() => {
      throw new Error('the workers stopped');
    });
    try {
      return await Promise.race([p, stopped]);
    } finally {
      this.shutdown();
      await this.done.catch(() => undefined);
    }
  }

  /** A Worker for each kept build that still has runs pinned to it; kept bundles of drained builds are removed. */
  async serveKept(view: DeploymentView | undefined): Promise<void> {
    const v = this.version!;
    const kept = keptBuilds(v.deploymentName, this.opts.home);
    for (const build of kept) {
      if (build === v.buildId || this.workers.has(build)) continue;
      const open = await openPinnedRuns(this.opts.client, { deploymentName: v.deploymentName, buildId: build });
      if (open === 0) {
        if (build !== view?.current) dropBuild(v.deploymentName, build, this.opts.home);
        continue;
      }
      let worker: Worker;
      try {
        worker = await createHermesWorker({
          ...this.opts,
          workflowBundle: { codePath: keptBundlePath(v.deploymentName, build, this.opts.home) },
          deploymentVersion: { deploymentName: v.deploymentName, buildId: build },
        });
      } catch (err) {
        // This build still runs; the old one's conversations wait for a worker that can load it.
        this.say(`cannot serve build ${build} (${open} pinned conversation${open === 1 ? '' : 's'}): ${(err as Error).message}`);
        continue;
      }
      this.add(build, worker);
      this.say(
        `serving build ${build} too: ${open} conversation${open === 1 ? ' is' : 's are'} pinned to it (kept bundle ${keptBundlePath(v.deploymentName, build, this.opts.home)})`,
      );
    }
    for (const b of view?.builds ?? []) {
      if (b.buildId === v.buildId || kept.includes(b.buildId) || this.missing.has(b.buildId)) continue;
      const open = await openPinnedRuns(this.opts.client, { deploymentName: v.deploymentName, buildId: b.buildId });
      if (open === 0) continue;
      this.missing.add(b.buildId);
      this.say(
        `${open} conversation${open === 1 ? ' is' : 's are'} pinned to build ${b.buildId}, whose bundle is not kept here: they wait for a worker of that build`,
      );
    }
  }

  /** Stops serving kept builds that drained; while this build is current, moves idle chats still on older ones. */
  async check(): Promise<void> {
    const v = this.version!;
    const view = await describeDeployment(this.opts.client.workflowService, this.opts.client.options.namespace, v.deploymentName);
    this.current = view?.current;
    for (const build of this.servedBuilds()) {
      if (build === this.current) continue;
      const open = await openPinnedRuns(this.opts.client, { deploymentName: v.deploymentName, buildId: build });
      if (open > 0 || this.stopping) continue;
      const w = this.workers.get(build);
      try {
        w?.worker.shutdown();
      } catch {
        // already stopping
      }
      await w?.running;
      dropBuild(v.deploymentName, build, this.opts.home);
      this.say(`build ${build} drained: no conversation is pinned to it any more; stopped serving it`);
    }
    if (this.current === v.buildId) await this.nudge();
  }

  async nudge(): Promise<void> {
    const n = await nudgeIdleChats(this.opts.client, this.version!);
    if (n > 0) this.say(`asked ${n} idle conversation${n === 1 ? '' : 's'} on older builds to move to build ${this.version!.buildId}`);
  }

  watch(everyMs: number): void {
    let busy = false;
    let warned = false;
    this.timer = setInterval(() => {
      if (busy || this.stopping) return;
      busy = true;
      this.check()
        .then(() => (warned = false))
        .catch((err: unknown) => {
          if (!warned) logger.warn({ err: (err as Error).message }, 'could not check the builds with pinned conversations; trying again');
          warned = true;
        })
        .finally(() => (busy = false));
    }, everyMs);
    this.timer.unref();
  }
}
