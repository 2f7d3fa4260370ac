// Where the Temporal server is: the user's cluster when TEMPORAL_ADDRESS (or an envconfig profile) says so,
// else an embedded dev server this process starts (or reuses) under .hermes/ — zero setup.
import { Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import { hermesHome } from './paths';
import { startDevServer } from './server/dev-server';

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

export function connectClient(t: TemporalTarget): Promise<Connection> {
  const { address, tls, apiKey, metadata } = t.connectionOptions;
  return Connection.connect({ address, tls: tls as never, apiKey: apiKey as never, metadata });
}

export function connectWorker(t: TemporalTarget): Promise<NativeConnection> {
  return NativeConnection.connect(t.connectionOptions);
}
