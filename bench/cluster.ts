// `npm run bench -- --cluster [--cluster-conversations 200] [--cluster-steps 10] [--cluster-workers 1,2,4]`: scale-out
// on the production-style server (cluster-server.ts: temporal-server 1.32.2 on PostgreSQL, port 29433, a data folder
// of its own). For each worker count, that many `hermes worker` processes serve a fresh task queue; the client starts
// every conversation at once; each takes <steps> write_file steps of the scripted model (50 ms a reply, real HTTP),
// then answers. Measured: conversations per second, step latency at the model (request to next request of a
// conversation), and CPU of the server, PostgreSQL (postmaster and backends), the workers, this process (client and
// model) and the rest of the machine, from /proc. Rewrites the cluster block of bench/RESULTS.md at the defaults.
import { Client, Connection } from '@temporalio/client';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Hermes } from '../src/client';
import { buildId, cachedWorkflowBundle, installHome } from '../src/startup/bundle';
import { clusterPrompt, ClusterModel, markerPath } from './cluster-model';
import { clusterReport, type ScaleRow } from './cluster-report';
import { startCluster, stopCluster, type Cluster } from './cluster-server';
import { startBenchWorker, stopBenchWorker } from './cluster-workers';
import { percentile } from './history';
import { loadavg, machineCpuMs, treeCpuMs } from './meter';
import { gitCommit } from './peers/report';
import { writeResults } from './report';

export const CLUSTER_PORT = 29433;
const DELAY_MS = 50;

export interface ScaleOptions {
  conversations: number;
  steps: number;
  workers: number[];
  /** Workspace checkpoints on (the product's default): each write_file step then also runs git several times. */
  checkpoints: boolean;
}

export function scaleOptions(argv: string[]): ScaleOptions {
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    conversations: Number(arg('--cluster-conversations') ?? 200),
    steps: Number(arg('--cluster-steps') ?? 10),
    workers: (arg('--cluster-workers') ?? '1,2,4').split(',').map(Number),
    checkpoints: argv.includes('--cluster-checkpoints'),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Conversations `ids` started at once on `hermes`; resolves when every one has its result. */
async function runAll(hermes: Hermes, ids: string[], steps: number, tag: string) {
  const handles = await Promise.all(
    ids.map((id) => hermes.start({ id, prompt: clusterPrompt(id, steps, DELAY_MS, 'write'), tools: ['write_file'] })),
  );
  const results = await Promise.all(handles.map((h) => h.result()));
  const bad = results.filter((r) => r.status !== 'completed' || r.toolCalls !== steps);
  if (bad.length) throw new Error(`${tag}: ${bad.length} conversations did not complete ${steps} steps: ${JSON.stringify(bad[0]).slice(0, 400)}`);
}

async function measure(c: Cluster, client: Client, model: ClusterModel, n: number, o: ScaleOptions, say: (s: string) => void): Promise<ScaleRow> {
  const taskQueue = `bench-cluster-${n}w-${Date.now().toString(36)}`;
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-cluster-ws-'));
  const processDir = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-cluster-procs-'));
  mkdirSync(path.join(workspace, 'markers'));
  const checkpointDir = o.checkpoints ? mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-cluster-checkpoints-')) : undefined;
  const workers = Array.from({ length: n }, () =>
    startBenchWorker({ address: c.address, taskQueue, baseURL: model.baseURL, workspace, processDir, checkpointDir }),
  );
  try {
    await Promise.all(workers.map((w) => w.ready));
    const hermes = await Hermes.connect({ client, taskQueue });
    // Warm-up, not measured: every worker's first workflow and activity tasks, its connections, the model client.
    model.allow(n * 4 * 3 * 2);
    await runAll(
      hermes,
      Array.from({ length: n * 4 }, (_, i) => `warm-${n}w-${i}-${taskQueue}`),
      2,
      'warm-up',
    );
    await sleep(3_000); // visibility and the server's queues settle
    const ids = Array.from({ length: o.conversations }, (_, i) => `c${i}-${taskQueue}`);
    model.allow(o.conversations * (o.steps + 1) * 2);
    const cpu = () => ({
      server: treeCpuMs(c.serverPid),
      postgres: treeCpuMs(c.postgresPid),
      workers: workers.reduce((a, w) => a + treeCpuMs(w.pid), 0),
      bench: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
      machine: machineCpuMs(),
    });
    const load0 = loadavg();
    const a = cpu();
    const t0 = performance.now();
    await runAll(hermes, ids, o.steps, `${n} workers`);
    const wallMs = performance.now() - t0;
    const b = cpu();
    const missing = ids
      .flatMap((id) => Array.from({ length: o.steps }, (_, k) => markerPath(id, k + 1)))
      .filter((f) => !existsSync(path.join(workspace, f)));
    if (missing.length) throw new Error(`${missing.length} marker files missing, e.g. ${missing[0]}`);
    const lat = model.stepLatencies(ids, o.steps).sort((x, y) => x - y);
    const busy = b.machine.busy - a.machine.busy;
    const ms = {
      server: b.server - a.server,
      postgres: b.postgres - a.postgres,
      workers: b.workers - a.workers,
      bench: b.bench - a.bench,
    };
    const row: ScaleRow = {
      workers: n,
      wallMs,
      convPerSec: o.conversations / (wallMs / 1000),
      p50: percentile(lat, 0.5),
      p95: percentile(lat, 0.95),
      latencies: lat.length,
      cpuMs: { ...ms, other: Math.max(0, busy - ms.server - ms.postgres - ms.workers - ms.bench) },
      machineBusyShare: busy / (b.machine.total - a.machine.total),
      steps: o.conversations * o.steps,
      load: `${load0} → ${loadavg()}`,
    };
    say(
      `${n} worker(s): ${row.convPerSec.toFixed(2)} conversations/s, step p50 ${row.p50.toFixed(0)} ms p95 ${row.p95.toFixed(0)} ms; CPU s ` +
        `server ${(ms.server / 1000).toFixed(1)}, postgres ${(ms.postgres / 1000).toFixed(1)}, workers ${(ms.workers / 1000).toFixed(1)}, ` +
        `bench ${(ms.bench / 1000).toFixed(1)}, other ${(row.cpuMs.other / 1000).toFixed(1)}; machine busy ${(100 * row.machineBusyShare).toFixed(0)} %`,
    );
    return row;
  } finally {
    await Promise.all(workers.map((w) => stopBenchWorker(w)));
    rmSync(workspace, { recursive: true, force: true });
    rmSync(processDir, { recursive: true, force: true });
    if (checkpointDir) rmSync(checkpointDir, { recursive: true, force: true });
  }
}

export async function runCluster(o: ScaleOptions, say: (s: string) => void): Promise<void> {
  const t0 = Date.now();
  // Bundled once into the install's cache, so the worker processes do not each bundle the workflow code.
  await cachedWorkflowBundle(undefined, buildId(), installHome());
  say(`starting the cluster on port ${CLUSTER_PORT} …`);
  const c = await startCluster(CLUSTER_PORT);
  const model = await ClusterModel.start();
  const connection = await Connection.connect({ address: c.address });
  const rows: ScaleRow[] = [];
  try {
    const client = new Client({ connection });
    for (const n of o.workers) rows.push(await measure(c, client, model, n, o, say));
  } finally {
    await connection.close();
    await model.close();
    await stopCluster(CLUSTER_PORT);
  }
  if (model.toolErrors.length) throw new Error(`marker tool failed: ${model.toolErrors.slice(0, 3).join('; ')}`);
  const block = clusterReport({ o, rows, commit: gitCommit(), tookMs: Date.now() - t0, date: new Date().toISOString().slice(0, 16) });
  console.log(`\n${block}`);
  if (o.conversations === 200 && o.steps === 10 && o.workers.join(',') === '1,2,4' && !o.checkpoints) writeResults(block, undefined, 'cluster');
}
