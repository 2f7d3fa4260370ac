// `npm run bench -- --soak [--soak-minutes 30] [--soak-workers 4] [--soak-in-flight 100] [--soak-steps 10]
// [--soak-kill-every 120]` (not in CI): the production-style server (port 29533, a data folder of its own) with W
// `hermes worker` processes and 100 conversations in flight the whole time (a new one starts when one finishes),
// each taking <steps> `terminal` steps that append to a marker file of their own (cluster-model.ts). About every
// 2 minutes a random worker of the kill pool is SIGKILLed and replaced (soak-fleet.ts); halfway the server and its
// PostgreSQL are stopped and started again on their data. At the end (soak-check.ts): every conversation completed,
// each marker written exactly once, none "Running" in visibility; worker RSS over the run. Prints a summary and,
// at 10 minutes or more, rewrites the soak block of bench/RESULTS.md (its heading names the length).
import { Client, Connection } from '@temporalio/client';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Hermes } from '../src/client';
import { buildId, cachedWorkflowBundle, installHome } from '../src/startup/bundle';
import { ClusterModel } from './cluster-model';
import { startCluster, stopCluster } from './cluster-server';
import { loadavg } from './meter';
import { gitCommit } from './peers/report';
import { writeResults } from './report';
import { checkSoak } from './soak-check';
import { Fleet } from './soak-fleet';
import { fly, type Flown } from './soak-flight';
import { soakPassed, soakReport } from './soak-report';

const SOAK_PORT = 29533;

export interface SoakOptions {
  minutes: number;
  workers: number;
  inFlight: number;
  steps: number;
  killEverySec: number;
}

export function soakOptions(argv: string[]): SoakOptions {
  const arg = (name: string, dflt: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  return {
    minutes: arg('--soak-minutes', 30),
    workers: Math.max(2, arg('--soak-workers', 4)),
    inFlight: arg('--soak-in-flight', 100),
    steps: arg('--soak-steps', 10),
    killEverySec: arg('--soak-kill-every', 120),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runSoak(o: SoakOptions, say: (s: string) => void): Promise<void> {
  const started = Date.now();
  await cachedWorkflowBundle(undefined, buildId(), installHome());
  say(`starting the cluster on port ${SOAK_PORT} …`);
  const c = await startCluster(SOAK_PORT);
  const model = await ClusterModel.start();
  const connection = await Connection.connect({ address: c.address });
  const client = new Client({ connection });
  const taskQueue = `soak-${Date.now().toString(36)}`;
  const hermes = await Hermes.connect({ client, taskQueue });
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-soak-ws-'));
  const processDir = mkdtempSync(path.join(os.tmpdir(), 'hermes-soak-procs-'));
  mkdirSync(path.join(workspace, 'markers'));
  // Checkpoints on, as the product runs: every marker call is snapshotted before and after (git), kills land in those too.
  const checkpointDir = mkdtempSync(path.join(os.tmpdir(), 'hermes-soak-checkpoints-'));
  const fleet = new Fleet({ address: c.address, taskQueue, baseURL: model.baseURL, workspace, processDir, checkpointDir }, o.workers);
  const load0 = loadavg();
  try {
    await fleet.start();
    const t0 = Date.now();
    const until = t0 + o.minutes * 60_000;
    const restart = { atSec: 0, downSec: 0 };
    let restarting = false;
    const restarter = (async () => {
      await sleep(until - t0 - o.minutes * 30_000);
      restarting = true;
      restart.atSec = (Date.now() - t0) / 1000;
      say(`restarting the server at ${(restart.atSec / 60).toFixed(1)} min (its data kept) …`);
      await stopCluster(SOAK_PORT);
      await startCluster(SOAK_PORT, true);
      restart.downSec = (Date.now() - t0) / 1000 - restart.atSec;
      restarting = false;
      say(`server back after ${restart.downSec.toFixed(1)} s`);
    })();
    const killer = (async () => {
      for (;;) {
        // Never past the deadline: the last conversations then finish without a kill, and the soak does not wait on one.
        await sleep(Math.min(o.killEverySec * 1000 * (0.75 + 0.5 * Math.random()), until - Date.now()));
        while (restarting) await sleep(1_000); // a kill due during the restart comes right after it
        if (Date.now() >= until) return;
        await fleet.killOne(say);
      }
    })();
    const flown: Flown[] = [];
    const progress = setInterval(() => {
      const done = flown.filter((f) => f.result || f.error).length;
      say(`${((Date.now() - t0) / 60_000).toFixed(1)} min: ${flown.length} started, ${done} finished; load ${loadavg()}`);
    }, 60_000);
    await fly({ hermes, model, inFlight: o.inFlight, steps: o.steps, until }, flown);
    clearInterval(progress);
    await Promise.all([restarter, killer]);
    const wallSec = (Date.now() - t0) / 1000;
    say(`${flown.length} conversations finished after ${(wallSec / 60).toFixed(1)} min; checking …`);
    const check = await checkSoak({ flown, steps: o.steps, workspace, client, taskQueue, log: c.log });
    await fleet.stop();
    const block = soakReport({
      o,
      check,
      fleet,
      model,
      flown,
      restart,
      wallSec,
      commit: gitCommit(),
      date: new Date(started).toISOString().slice(0, 16),
      load: `${load0} → ${loadavg()}`,
      benchRssMb: process.memoryUsage().rss / 1024 / 1024,
    });
    console.log(`\n${block}`);
    if (o.minutes >= 10) writeResults(block, undefined, 'soak');
    // A failed check fails the command too (after the block is recorded: the failures are the figures to read).
    if (!soakPassed(check, model)) throw new Error('soak: failed checks (see the block above)');
  } finally {
    await fleet.stop();
    await connection.close();
    await model.close();
    await stopCluster(SOAK_PORT);
    rmSync(workspace, { recursive: true, force: true });
    rmSync(processDir, { recursive: true, force: true });
    rmSync(checkpointDir, { recursive: true, force: true });
  }
}
