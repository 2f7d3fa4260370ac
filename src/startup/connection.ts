// Where the Temporal server is: the user's cluster when TEMPORAL_ADDRESS (or an envconfig profile) says so,
// else an embedded dev server this process starts (or reuses) under .hermes/ — zero setup.
import { Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnection, NativeConnectionOptions } from '@temporalio/worker';
import { hermesHome } from '../shared/paths';
import { startDevServer } from '../dev-server/dev-server';
import { addressProblem } from './address-probe';

export interface TemporalTarget {
  connectionOptions: NativeConnectionOptions & { address: string };
  namespace: string;
  /** Set when this process started (or reused) the embedded dev server. */
  embedded?: { uiUrl: string; reused: boolean; stop(): Promise<void> };
}

export function clusterConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.TEMPORAL_ADDRESS || env.TEMPORAL_PROFILE || env.TEMPORAL_CONFIG_FILE);
}

export async function resolveTemporal(env: NodeJS.ProcessEnv = process.env): Promise<TemporalTarget> {
  if (clusterConfigured(env)) {
    const cfg = loadClientConnectConfig({ profile: env.TEMPORAL_PROFILE });
    return {
      connectionOptions: { ...cfg.connectionOptions, address: cfg.connectionOptions.address ?? 'localhost:7233' },
      namespace: cfg.namespace ?? 'default',
    };
  }
  const server = await startDevServer({ home: hermesHome() });
  return { connectionOptions: { address: server.address }, namespace: 'default', embedded: server };
}

/** How long the first connection to a cluster may take before the error says where it tried. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The client connection. A cluster that cannot be used is said at once, with its address, the namespace and what
 * to check: a refused port, a name that does not resolve or a web server before gRPC's own 10 s of retrying
 * (address-probe.ts), anything else (TLS, not Temporal) within CONNECT_TIMEOUT_MS; a namespace it does not have, too.
 */
export async function connectClient(t: TemporalTarget, env: NodeJS.ProcessEnv = process.env): Promise<Connection> {
  const { address, tls, apiKey, metadata } = t.connectionOptions;
  if (t.embedded) return Connection.connect({ address, tls: tls as never, apiKey: apiKey as never, metadata });
  const where = `the Temporal server at ${address} (namespace ${t.namespace}, ${origin(env)})`;
  const unreachable = (why: string) =>
    new Error(
      `cannot reach ${where}: ${why}. Check that the server runs and listens there and that the address is right ` +
        '(TEMPORAL_ADDRESS, or the profile of TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE); for a TLS endpoint such as ' +
        'Temporal Cloud, TEMPORAL_TLS* and TEMPORAL_API_KEY. Without TEMPORAL_ADDRESS hermes uses its embedded server.',
    );
  // Through a proxy only gRPC itself can tell; without one, a plain TCP connect (and, without TLS, the first bytes
  // the server answers) tells within milliseconds.
  if (!PROXY_VARS.some((v) => env[v])) {
    const problem = await addressProblem(address, { tls: Boolean(tls) });
    if (problem) throw unreachable(problem);
  }
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, tls: tls as never, apiKey: apiKey as never, metadata, connectTimeout: CONNECT_TIMEOUT_MS });
  } catch (err) {
    throw Object.assign(unreachable((err as Error).message), { cause: err });
  }
  try {
    await connection.workflowService.describeNamespace({ namespace: t.namespace });
  } catch (err) {
    // Only a namespace the server does not have: a key may lack the permission to describe one it can use.
    if ((err as { code?: number }).code === 5 /* NOT_FOUND */) {
      await connection.close().catch(() => undefined);
      throw new Error(
        `namespace ${t.namespace} does not exist on the Temporal server at ${address} (${origin(env)}): ` +
          'check TEMPORAL_NAMESPACE (or the profile), or create it (temporal operator namespace create)',
        { cause: err },
      );
    }
  }
  return connection;
}

const PROXY_VARS = ['grpc_proxy', 'https_proxy', 'http_proxy', 'GRPC_PROXY', 'HTTPS_PROXY', 'HTTP_PROXY'];

function origin(env: NodeJS.ProcessEnv): string {
  if (env.TEMPORAL_ADDRESS) return 'from TEMPORAL_ADDRESS';
  return env.TEMPORAL_PROFILE ? `from profile ${env.TEMPORAL_PROFILE}` : 'from the Temporal config file';
}

export function connectWorker(t: TemporalTarget): Promise<NativeConnection> {
  // Required here, not imported: a client-only command (status, list, inspect) never loads the worker package.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { NativeConnection: Native } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  return Native.connect(t.connectionOptions);
}

/**
 * Closes a worker connection and the call-context store it keeps. The SDK's NativeConnection.close() (1.24) leaves
 * that AsyncLocalStorage enabled (the activities' client calls enable it), and Node visits every enabled store on
 * every promise the process makes from then on: a process that opens and closes workers (an app's own tests,
 * `Hermes.connect({ worker })` per job) got slower with each one (measured: 15 s of a 204 s integration tier).
 */
export async function closeWorkerConnection(connection: NativeConnection): Promise<void> {
  await connection.close();
  connection.callContextStorage.disable();
}

/** The line a command prints when it starts riding out an outage (`result()`, `hermes watch`). */
export function sayUnreachable(err: Error): void {
  process.stderr.write(`Temporal server unreachable, retrying… (${err.message})\n`);
}

/**
 * True for errors that mean "the server cannot be reached right now" (gRPC UNAVAILABLE, a connection refused
 * or reset, a deadline hit while it was down), as opposed to an answer from the server.
 */
export function isServerUnreachable(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 8;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code === 14 /* UNAVAILABLE */ || e.code === 4 /* DEADLINE_EXCEEDED */) return true;
    if (
      typeof e.message === 'string' &&
      /UNAVAILABLE|ECONNREFUSED|ECONNRESET|No connection established|Connection dropped|connect failed/i.test(e.message)
    ) {
      return true;
    }
  }
  return false;
}
