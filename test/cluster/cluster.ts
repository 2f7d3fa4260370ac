// What the cluster tier's tests share: a scripted model, a client, a workspace and a task queue of their own on the
// tier's server (global-setup.ts), `hermes worker` processes, the real CLI and the stock `temporal` CLI pointed at
// it, the server's log, and a restart of the server that keeps its data.
import { Client, Connection } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { Hermes } from '../../src/client';
import { dataConverter } from '../../src/codec';
import { MockModel, type Reply } from '../helpers/mock-model';
import { spawnHermes, type HermesRun } from '../helpers/spawn-hermes';
import { startWorkerProcess, workerEnv, type WorkerProcess } from '../helpers/worker-process';
import { CLUSTER_SCRIPTS } from './scripts';

const exec = promisify(execFile);
let counter = 0;

export type Cleanups = Array<() => unknown>;

/** A scripted model, a client and a unique task queue on the cluster; `worker()` starts a `hermes worker` process. */
export async function clusterSetup(cleanups: Cleanups, what: string, script: Reply[], extraEnv: Record<string, string> = {}) {
  const mock = await MockModel.start(script);
  cleanups.push(() => mock.close());
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  cleanups.push(() => connection.close());
  const converter = dataConverter(extraEnv); // the payload store when the test sets one
  const client = new Client({ connection, ...(converter ? { dataConverter: converter } : {}) });
  const taskQueue = `cluster-${what}-${process.pid}-${++counter}-${Date.now().toString(36)}`;
  const hermes = await Hermes.connect({ client, taskQueue });
  const workspace = mkdtempSync(path.join(os.tmpdir(), `hermes-cluster-${what}-`));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const processDir = mkdtempSync(path.join(os.tmpdir(), 'hermes-cluster-procs-'));
  cleanups.push(() => rmSync(processDir, { recursive: true, force: true }));
  const env = workerEnv(
    { address, taskQueue, baseURL: mock.baseURL, workspace },
    { HERMES_PROCESS_DIR: processDir, HERMES_SANDBOX: 'none', HERMES_UNSHARE_PATH: '/nonexistent/unshare', ...extraEnv },
  );
  const worker = (extra: Record<string, string> = {}): WorkerProcess => startWorkerProcess({ ...env, ...extra }, workspace);
  /** The real `hermes` command against the cluster, on this task queue. */
  const cli = (args: string[], timeoutMs = 60_000): Promise<HermesRun> =>
    spawnHermes(args, { env: { TEMPORAL_ADDRESS: address, HERMES_TASK_QUEUE: taskQueue, ...extraEnv }, cwd: workspace, timeoutMs });
  return { mock, client, hermes, taskQueue, workspace, env, worker, cli };
}

/** The stock `temporal` CLI against the cluster; resolves with its stdout. */
export async function temporal(...args: string[]): Promise<string> {
  const { stdout } = await exec(inject('temporalCliPath'), [...args, '--address', inject('temporalAddress')], { maxBuffer: 16 << 20 });
  return stdout;
}

/** The temporal-server log so far ('' when the tier runs against a server it did not start). */
export function serverLog(): string {
  const f = inject('clusterLog');
  return f && existsSync(f) ? readFileSync(f, 'utf8') : '';
}

/** True when the tier started the server itself, so a test may stop and start it. */
export const canRestart = (): boolean => inject('clusterData') !== '';

/** Stops the server and its PostgreSQL, calls `whileDown`, then starts both again on the same data (CLUSTER_KEEP=1). */
export async function restartServer(whileDown: () => Promise<unknown> = async () => {}): Promise<void> {
  const port = String(inject('clusterPort'));
  const env = { ...process.env, CLUSTER_DATA: inject('clusterData') };
  await exec('bash', [CLUSTER_SCRIPTS.stop, port], { env });
  await whileDown();
  await exec('bash', [CLUSTER_SCRIPTS.start, port], { env: { ...env, CLUSTER_KEEP: '1' }, maxBuffer: 16 << 20 });
}
