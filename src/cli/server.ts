// Running the pieces: `hermes worker` (for a cluster), `hermes server` (the embedded dev server in the
// foreground) and `hermes install-temporal`.
import type { Connection } from '@temporalio/client';
import { parseArgs } from 'node:util';
import { Hermes } from '../client';
import { connectWorker } from '../connection';
import { installRuntimeLogger } from '../logger';
import { hermesHome } from '../paths';
import { ensureSearchAttributes, startDevServer } from '../server/dev-server';
import { requireTemporalCli } from '../server/temporal-cli';
import { startWorkerFleet } from '../versioning/fleet';

export async function worker(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'task-queue': { type: 'string' }, workspace: { type: 'string' } },
  });
  installRuntimeLogger('INFO');
  const hermes = await Hermes.connect({ taskQueue: values['task-queue'] });
  const target = hermes.target!;
  const connection = await connectWorker(target);
  // Workers of a cluster register the attributes the workflow upserts (no-op when present).
  await ensureSearchAttributes(hermes.client.connection as Connection, target.namespace);
  const say = (line: string) => void process.stderr.write(`hermes worker: ${line}\n`);
  // A version of the task queue's Worker Deployment, made current when it is the newest build; older builds'
  // pinned conversations are served from their kept bundles (docs/versioning.md). Said once it is settled, so a
  // conversation started after this line starts on this build.
  const fleet = await startWorkerFleet({
    connection,
    client: hermes.client,
    namespace: target.namespace,
    taskQueue: hermes.taskQueue,
    workspace: values.workspace,
    say,
  });
  process.stderr.write(
    `hermes worker on ${target.connectionOptions.address} (namespace ${target.namespace}, task queue ${hermes.taskQueue}; ${fleet.summary})\n`,
  );
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => fleet.shutdown());
  await fleet.done;
  await connection.close();
  await hermes.close();
  return 0;
}

export async function server(): Promise<number> {
  const s = await startDevServer({ home: hermesHome() });
  process.stderr.write(`Temporal dev server on ${s.address}, Web UI ${s.uiUrl}${s.reused ? ' (already running)' : ''}\n`);
  if (s.reused) return 0;
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await s.stop();
  return 0;
}

export async function installTemporal(): Promise<number> {
  const p = await requireTemporalCli({ install: true });
  console.log(`temporal CLI: ${p}`);
  return 0;
}
