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
import { createHermesWorker } from '../worker';

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
  const w = await createHermesWorker({
    connection,
    namespace: target.namespace,
    taskQueue: hermes.taskQueue,
    workspace: values.workspace,
  });
  process.stderr.write(`hermes worker on ${target.connectionOptions.address} (namespace ${target.namespace}, task queue ${hermes.taskQueue})\n`);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => w.shutdown());
  await w.run();
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
