// The cluster tier's server: deploy/cluster/start.sh (temporal-server 1.32.2 on PostgreSQL with SQL visibility) on
// free ports with a data folder of its own, stopped (and its data removed) after the run. HERMES_CLUSTER_ADDRESS
// points the tier at a server already running instead (then the restart test skips: it has no script to restart
// with), with HERMES_CLUSTER_LOG its log file if the server log is to be checked and TEMPORAL_CLI_PATH the stock CLI.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { temporalExecutable } from '../../src/dev-server/temporal-cli';
import { buildId, cachedWorkflowBundle, installHome } from '../../src/startup/bundle';
import type { TestProject } from 'vitest/node';
import { CLUSTER_SCRIPTS, portOffsets } from './scripts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cluster's frontend port, and its data folder ('' when HERMES_CLUSTER_ADDRESS names a server). */
    clusterPort: number;
    clusterData: string;
    /** The temporal-server log ('' when not known). */
    clusterLog: string;
  }
}

const exec = promisify(execFile);

/** A frontend port whose whole block (the other services, PostgreSQL) is free on loopback. */
async function freeBlock(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    // start.sh: PORT+706 must fit a smallint (the membership table); 29233's block (the script's default) is avoided.
    const base = 20_000 + Math.floor(Math.random() * 9_000);
    const free = await Promise.all(portOffsets.map((o) => canListen(base + o)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no free block of ports for the cluster');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export default async function setup(project: TestProject) {
  // The install's cached bundle, so the worker processes the tests start do not each bundle the workflow code.
  const bundle = cachedWorkflowBundle(undefined, buildId(), installHome());
  const external = process.env.HERMES_CLUSTER_ADDRESS;
  let stop = async () => {};
  if (external) {
    const cli = await temporalExecutable('cli', { install: true });
    project.provide('temporalAddress', external);
    project.provide('temporalCliPath', cli.type === 'existing-path' ? cli.path : '');
    project.provide('clusterPort', Number(external.split(':').at(-1)));
    project.provide('clusterData', '');
    project.provide('clusterLog', process.env.HERMES_CLUSTER_LOG ?? '');
  } else {
    const port = await freeBlock();
    const data = mkdtempSync(path.join(os.tmpdir(), 'hermes-cluster-'));
    const env = { ...process.env, CLUSTER_DATA: data };
    const t0 = Date.now();
    // The first start on a machine builds the server (~10 min on 2 cores): no time limit here.
    const { stdout } = await exec('bash', [CLUSTER_SCRIPTS.start, String(port)], { env, maxBuffer: 16 << 20 }).catch(
      async (err: Error & { stderr?: string }) => {
        await exec('bash', [CLUSTER_SCRIPTS.stop, String(port)], { env }).catch(() => undefined); // a PostgreSQL it did start
        throw new Error(`deploy/cluster/start.sh ${port} failed (log in ${data}/log):\n${(err.stderr ?? err.message).slice(-3000)}`);
      },
    );
    const out = Object.fromEntries(
      stdout.split('\n').flatMap((l) => (/^[A-Z_]+=/.test(l) ? [[l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]] : [])),
    );
    console.log(
      `[cluster] temporal-server on ${out.TEMPORAL_ADDRESS} (PostgreSQL visibility), started in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    project.provide('temporalAddress', out.TEMPORAL_ADDRESS!);
    project.provide('temporalCliPath', out.TEMPORAL_CLI!);
    project.provide('clusterPort', port);
    project.provide('clusterData', data);
    project.provide('clusterLog', path.join(data, 'log', 'temporal.log'));
    stop = async () => {
      await exec('bash', [CLUSTER_SCRIPTS.stop, String(port)], { env });
      if (!process.env.HERMES_CLUSTER_KEEP_DATA) rmSync(data, { recursive: true, force: true });
    };
  }
  project.provide('workflowBundlePath', (await bundle).codePath);
  return stop;
}
