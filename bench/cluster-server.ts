// The production-style server for the cluster bench and the soak: deploy/cluster/start.sh (temporal-server 1.32.2 on
// PostgreSQL 15, SQL visibility) on a port and data folder of the bench's own, not the test tier's. The scripts are
// the tier's (test/cluster/scripts.ts); this only runs them and reads what they print and leave behind.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLUSTER_SCRIPTS } from '../test/cluster/scripts';

const exec = promisify(execFile);

export interface Cluster {
  port: number;
  address: string;
  data: string;
  /** The temporal-server process (all four services). */
  serverPid: number;
  /** The postmaster; its backends are its children. */
  postgresPid: number;
  log: string;
}

/** The bench's data folder for a port (start.sh removes and remakes it unless `keep`). */
export const clusterData = (port: number) => path.join(os.tmpdir(), `hermes-bench-cluster-${port}`);

/** Starts the cluster on `port`; `keep` starts it on the data of an earlier start (CLUSTER_KEEP=1: a restart). */
export async function startCluster(port: number, keep = false): Promise<Cluster> {
  const data = clusterData(port);
  const env = { ...process.env, CLUSTER_DATA: data, ...(keep ? { CLUSTER_KEEP: '1' } : {}) };
  const { stdout } = await exec('bash', [CLUSTER_SCRIPTS.start, String(port)], { env, maxBuffer: 16 << 20 }).catch(
    (err: Error & { stderr?: string }) => {
      throw new Error(`deploy/cluster/start.sh ${port} failed (log in ${data}/log):\n${(err.stderr ?? err.message).slice(-3000)}`);
    },
  );
  const out = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(stdout)?.[1] ?? '';
  return {
    port,
    address: out('TEMPORAL_ADDRESS'),
    data,
    serverPid: Number(out('SERVER_PID')),
    // postmaster.pid: the first line is the postmaster's pid.
    postgresPid: Number(readFileSync(path.join(data, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]),
    log: path.join(data, 'log', 'temporal.log'),
  };
}

/** Stops the server and its PostgreSQL; the data stays for a `startCluster(port, true)`. */
export async function stopCluster(port: number): Promise<void> {
  await exec('bash', [CLUSTER_SCRIPTS.stop, String(port)], { env: { ...process.env, CLUSTER_DATA: clusterData(port) } });
}
