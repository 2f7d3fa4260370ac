// Running the pieces: `hermes worker` (for a cluster), `hermes server` (the embedded dev server in the
// foreground) and `hermes install-temporal`.
import type { Connection } from '@temporalio/client';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { Hermes } from '../client';
import { closeWorkerConnection, connectWorker } from '../startup/connection';
import { installRuntimeLogger } from '../observe/logger';
import { metricsHost, prometheusOptions, watchConversations } from '../observe/metrics';
import { tracingConfigured } from '../observe/tracing';
import { UsageError } from './common';
import { hermesHome } from '../shared/paths';
import { ensureSearchAttributes, startDevServer } from '../dev-server/dev-server';
import { requireTemporalCli } from '../dev-server/temporal-cli';
import { startWorkerFleet, type WorkerFleet } from '../versioning/fleet';
import { startHealthServer } from '../observe/health';
import { SHUTDOWN_FORCE_AFTER_SEC, SHUTDOWN_GRACE_SEC } from '../shared/defaults';

export async function worker(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'task-queue': { type: 'string' },
      workspace: { type: 'string' },
      'metrics-port': { type: 'string' },
      'health-port': { type: 'string' },
      grace: { type: 'string' },
    },
  });
  const metricsPort = portOption('--metrics-port', values['metrics-port'] ?? process.env.HERMES_METRICS_PORT);
  const healthPort = portOption('--health-port', values['health-port'] ?? process.env.HERMES_HEALTH_PORT);
  const graceSec = graceOption(values.grace ?? process.env.HERMES_SHUTDOWN_GRACE_SEC);
  // Prometheus at :N/metrics: the runtime's exporter serves the SDK's worker metrics and ours (src/observe/metrics.ts).
  installRuntimeLogger('INFO', metricsPort ? { metrics: prometheusOptions(metricsPort) } : {});
  const say = (line: string) => void process.stderr.write(`hermes worker: ${line}\n`);
  // Liveness from the start (bundling the workflow code takes seconds); readiness once the Workers poll.
  let fleet: WorkerFleet | undefined;
  let hermes: Hermes | undefined;
  const health = healthPort
    ? await startHealthServer({
        port: healthPort,
        host: process.env.HERMES_HEALTH_HOST,
        source: () =>
          fleet && hermes ? { states: () => fleet!.states(), ping: () => hermes!.client.connection.workflowService.getSystemInfo({}) } : undefined,
      })
    : undefined;
  hermes = await Hermes.connect({ taskQueue: values['task-queue'] });
  const stopWatching = metricsPort ? watchConversations(hermes.client, visibilityMs()) : undefined;
  const target = hermes.target!;
  const connection = await connectWorker(target);
  // Workers of a cluster register the attributes the workflow upserts (no-op when present).
  await ensureSearchAttributes(hermes.client.connection as Connection, target.namespace);
  // A version of the task queue's Worker Deployment, made current when it is the newest build; older builds'
  // pinned conversations are served from their kept bundles (docs/versioning.md). Said once it is settled, so a
  // conversation started after this line starts on this build.
  fleet = await startWorkerFleet({
    connection,
    client: hermes.client,
    namespace: target.namespace,
    taskQueue: hermes.taskQueue,
    workspace: values.workspace,
    say,
    // On SIGTERM the Workers stop polling at once; running activities get the grace period to finish, then the
    // SDK cancels them (tools stop their processes; a model call fails its attempt and is retried elsewhere).
    // The force time is the backstop for an activity that ignores cancellation.
    tuning: { shutdownGraceTime: graceSec * 1000, shutdownForceTime: (graceSec + SHUTDOWN_FORCE_AFTER_SEC) * 1000 },
  });
  process.stderr.write(
    `hermes worker on ${target.connectionOptions.address} (namespace ${target.namespace}, task queue ${hermes.taskQueue}; ${fleet.summary})\n`,
  );
  if (metricsPort) say(`metrics on http://${metricsHost()}:${metricsPort}/metrics`);
  if (health) say(`health on ${health.url}/healthz (liveness) and ${health.url}/readyz (readiness)`);
  if (tracingConfigured()) say('tracing to the OTLP endpoint of OTEL_EXPORTER_OTLP_ENDPOINT');
  let stopping = false;
  const stop = (sig: NodeJS.Signals) => {
    if (stopping) {
      // A second signal: out now. Terminal commands still running are killed by the next worker on this host.
      say(`${sig} again: exiting without waiting for running tools`);
      process.exit(EXIT_FORCED);
    }
    stopping = true;
    say(`${sig}: stopped polling; running tools get ${graceSec} s to finish, then they are stopped (${sig} again to exit at once)`);
    fleet!.shutdown();
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, stop);
  try {
    await fleet.done;
  } finally {
    stopWatching?.();
    await health?.close();
    await closeWorkerConnection(connection);
    await hermes.close();
  }
  if (stopping) say('stopped');
  return 0;
}

const EXIT_FORCED = 130;

function portOption(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new UsageError(`${flag} must be a port number (1-65535), got "${raw}"`);
  return n;
}

function graceOption(raw: string | undefined): number {
  if (raw === undefined || raw === '') return SHUTDOWN_GRACE_SEC;
  const n = Number(raw);
  if (!raw.trim() || !Number.isFinite(n) || n < 0 || n > 3_600) throw new UsageError(`--grace must be seconds from 0 to 3600, got "${raw}"`);
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
  let watch: NodeJS.Timeout | undefined;
  const code = await new Promise<number>((resolve) => {
    process.once('SIGINT', () => resolve(0));
    process.once('SIGTERM', () => resolve(0));
    // The server's child process is unref'd (a `hermes run` must not wait for it) and signal listeners hold
    // nothing, so without this timer the command returned as soon as the server answered. It also notices a
    // server that died under it.
    watch = setInterval(() => {
      if (s.pid === undefined || alive(s.pid)) return;
      process.stderr.write(`hermes: the Temporal dev server exited; its log: ${s.logFile ?? path.join(hermesHome(), 'temporal-server.log')}\n`);
      resolve(1);
    }, 1000);
  });
  clearInterval(watch);
  await s.stop();
  return code;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function installTemporal(): Promise<number> {
  const p = await requireTemporalCli({ install: true });
  console.log(`temporal CLI: ${p}`);
  return 0;
}
