// The server's side of Worker Deployment Versioning (docs/versioning.md): which builds of the deployment exist,
// which one is current, which still have conversations pinned to them, and nudging idle chats to move on.
// Everything goes through the WorkflowService and visibility; nothing here runs workflow code.
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { upgradeSignal } from '../shared/messages';

/** `auto`: versioned, and a new build makes itself current; `manual`: versioned, an operator sets current; `off`. */
export type VersioningMode = 'auto' | 'manual' | 'off';

export function versioningMode(env: NodeJS.ProcessEnv = process.env): VersioningMode {
  const raw = (env.HERMES_VERSIONING ?? '').trim().toLowerCase() || 'auto';
  if (raw === 'auto' || raw === 'manual' || raw === 'off') return raw;
  throw new Error(`HERMES_VERSIONING=${env.HERMES_VERSIONING}: expected auto, manual or off`);
}

/**
 * The deployment a worker of this task queue belongs to: HERMES_DEPLOYMENT, else the task queue's name (`hermes`
 * by default). One deployment per task queue: Temporal refuses to make a version current unless it polls every
 * task queue the deployment has served, and a hermes worker polls one.
 */
export function deploymentName(taskQueue: string, env: NodeJS.ProcessEnv = process.env): string {
  const name = env.HERMES_DEPLOYMENT?.trim() || taskQueue;
  // The server's canonical version string is `<deployment>.<build>`: keep the name to safe characters.
  return name.replace(/[^A-Za-z0-9_-]/g, '-');
}

/** How visibility spells a version (`TemporalWorkerDeploymentVersion`). */
export function versionKey(v: WorkerDeploymentVersion): string {
  return `${v.deploymentName}:${v.buildId}`;
}

export interface BuildInfo {
  buildId: string;
  /** When the server first saw a poller of it (ms since the epoch). */
  createdMs: number;
  /** It has been current or ramping at some point. */
  activated: boolean;
}

export interface DeploymentView {
  builds: BuildInfo[];
  current?: string;
  ramping?: string;
  conflictToken?: Uint8Array | null;
}

type Rpc = Client['workflowService'];

function grpcCode(err: unknown): number | undefined {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const FAILED_PRECONDITION = 9;
const UNIMPLEMENTED = 12;

function ms(t: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined): number {
  if (!t) return 0;
  const sec = typeof t.seconds === 'object' && t.seconds ? t.seconds.toNumber() : Number(t.seconds ?? 0);
  return sec * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/** The deployment as the server sees it; undefined when no worker of it has polled yet. */
export async function describeDeployment(rpc: Rpc, namespace: string, deployment: string): Promise<DeploymentView | undefined> {
  let resp;
  try {
    resp = await rpc.describeWorkerDeployment({ namespace, deploymentName: deployment });
  } catch (err) {
    if (grpcCode(err) === NOT_FOUND) return undefined;
    throw err;
  }
  const info = resp.workerDeploymentInfo;
  const routing = info?.routingConfig;
  return {
    builds: (info?.versionSummaries ?? []).flatMap((v) =>
      v.deploymentVersion?.buildId
        ? [{ buildId: v.deploymentVersion.buildId, createdMs: ms(v.createTime), activated: Boolean(v.firstActivationTime || v.currentSinceTime) }]
        : [],
    ),
    current: routing?.currentDeploymentVersion?.buildId || undefined,
    ramping: routing?.rampingDeploymentVersion?.buildId || undefined,
    conflictToken: resp.conflictToken,
  };
}

/**
 * Why this server cannot version workers (a line for the user), or undefined when it can. Errors that say
 * nothing about versioning (the server is down) are thrown: the worker could not run anyway.
 */
export async function versioningUnsupported(rpc: Rpc, namespace: string, deployment: string): Promise<string | undefined> {
  try {
    await describeDeployment(rpc, namespace, deployment);
    return undefined;
  } catch (err) {
    const code = grpcCode(err);
    // The gRPC error's own text, without the "7 PERMISSION_DENIED: " its message starts with.
    const said = ((err as { details?: string }).details || (err as Error).message).replace(/\.$/, '');
    if (code === UNIMPLEMENTED) return `the server has no Worker Deployment API: ${said}`;
    if (code === FAILED_PRECONDITION || code === PERMISSION_DENIED) return `the server refuses Worker Deployment calls: ${said}`;
    throw err;
  }
}

/**
 * Whether a build should make itself current: there is no current build, or it has never been current or ramping
 * and no build of the deployment was seen after it. A build that was current once and was superseded never takes
 * over again by itself (rolling back is an operator's `temporal worker deployment set-current-version`).
 */
export function shouldBecomeCurrent(view: DeploymentView, buildId: string): boolean {
  if (view.current === buildId) return false;
  const mine = view.builds.find((b) => b.buildId === buildId);
  if (!mine) return false;
  if (!view.current) return true;
  return !mine.activated && view.builds.every((b) => b.buildId === buildId || b.createdMs < mine.createdMs);
}

const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

/** Waits until the server lists the version (its first poll registers it; ~1 s on the dev server). */
export async function waitForBuild(rpc: Rpc, namespace: string, v: WorkerDeploymentVersion, timeoutMs = 30_000): Promise<DeploymentView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const view = await describeDeployment(rpc, namespace, v.deploymentName);
    if (view?.builds.some((b) => b.buildId === v.buildId)) return view;
    if (Date.now() > until)
      throw new Error(`the server did not list build ${v.buildId} of deployment ${v.deploymentName} within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/** Makes the version current; retried while the server has not yet seen its pollers on every task queue. */
export async function setCurrent(rpc: Rpc, namespace: string, v: WorkerDeploymentVersion, identity: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await rpc.setWorkerDeploymentCurrentVersion({ namespace, deploymentName: v.deploymentName, buildId: v.buildId, identity });
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await sleep(300);
    }
  }
}

/** Open runs pinned to the version (AUTO_UPGRADE runs, such as memory scopes, go wherever the current build is). */
export function pinnedQuery(v: WorkerDeploymentVersion): string {
  return `TemporalWorkerDeploymentVersion = '${versionKey(v)}' AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'`;
}

export async function openPinnedRuns(client: Client, v: WorkerDeploymentVersion): Promise<number> {
  return (await client.workflow.count(pinnedQuery(v))).count;
}

/** Every build of the deployment with runs still pinned to it, with their number (`hermes doctor`, the worker). */
export async function buildsWithOpenRuns(client: Client, deployment: string): Promise<Array<{ buildId: string; open: number; current: boolean }>> {
  const view = await describeDeployment(client.workflowService, client.options.namespace, deployment);
  if (!view) return [];
  const out: Array<{ buildId: string; open: number; current: boolean }> = [];
  for (const b of [...view.builds].sort((x, y) => y.createdMs - x.createdMs)) {
    const open = await openPinnedRuns(client, { deploymentName: deployment, buildId: b.buildId });
    if (open > 0 || b.buildId === view.current) out.push({ buildId: b.buildId, open, current: b.buildId === view.current });
  }
  return out;
}

/**
 * Signals `upgrade` to the idle chats pinned to other builds of the deployment than `current`: an idle chat runs
 * no workflow task by itself, so without one it would only see the new build when its next message arrives (and
 * answer it on the old one). Returns how many were signalled. Without the HermesStatus attribute (a cluster that
 * could not register it) every conversation pinned elsewhere is signalled; busy ones ignore it.
 */
export async function nudgeIdleChats(client: Client, current: WorkerDeploymentVersion): Promise<number> {
  const base =
    `TemporalWorkerDeployment = '${current.deploymentName}' AND TemporalWorkerDeploymentVersion != '${versionKey(current)}'` +
    ` AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running' AND WorkflowType = 'conversationWorkflow'`;
  let ids: string[];
  try {
    ids = await listIds(client, `${base} AND HermesStatus = 'idle'`);
  } catch {
    ids = await listIds(client, base);
  }
  let n = 0;
  for (const id of ids) {
    try {
      await client.workflow.getHandle(id).signal(upgradeSignal);
      n++;
    } catch {
      // it ended meanwhile
    }
  }
  return n;
}

async function listIds(client: Client, query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of client.workflow.list({ query })) ids.push(w.workflowId);
  return ids;
}
