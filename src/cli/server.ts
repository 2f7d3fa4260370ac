// Running the pieces: `hermes worker` (for a cluster), `hermes server` (the embedded dev server in the
// foreground) and `hermes install-temporal`.
import type { Connection } from '@temporalio/client';
import { parseArgs } from 'node:util';
import { Hermes } from '../client';
import { connectWorker } from '../connection';
import { installRuntimeLogger } from '../logger';
import { prometheusOptions, watchConversations } from '../observe/metrics';
import { tracingConfigured } from '../observe/tracing';
import { UsageError } from './common';
import { hermesHome } from '../paths';
import { ensureSearchAttributes, startDevServer } from '../server/dev-server';
import { requireTemporalCli } from '../server/temporal-cli';
import { startWorkerFleet } from '../versioning/fleet';

export async function worker(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'task-queue': { type: 'string' }, workspace: { type: 'string' }, 'metrics-port': { type: 'string' } },
  });
  const metricsPort = portOption(values['metrics-port'] ?? process.env.HERMES_METRICS_PORT);
  // Prometheus at :N/metrics: the runtime's exporter serves the SDK's worker metrics and ours (src/observe/metrics.ts).
  installRuntimeLogger('INFO', metricsPort ? { metrics: prometheusOptions(metricsPort) } : {});
  const hermes = await Hermes.connect({ taskQueue: values['task-queue'] });
  const stopWatching = metricsPort ? watchConversations(hermes.client, visibilityMs()) : undefined;
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
  if (metricsPort) say(`metrics on http://${process.env.HERMES_METRICS_HOST ?? '0.0.0.0'}:${metricsPort}/metrics`);
  if (tracingConfigured()) say('tracing to the OTLP endpoint of OTEL_EXPORTER_OTLP_ENDPOINT');
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => fleet.shutdown());
  await fleet.done;
  stopWatching?.();
  await connection.close();
  await hermes.close();
  return 0;
}

function portOption(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new UsageError(`--metrics-port must be a port number (1-65535), got "${raw}"`);
  return n;
}

/** How often the conversations gauge is counted from visibility (HERMES_METRICS_VISIBILITY_SEC, default 15). */
function visibilityMs(): number {
  const v = Number(process.env.HERMES_METRICS_VISIBILITY_SEC);
  return Number.isFinite(v) && v > 0 ? v * 1000 : 15_000;
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
