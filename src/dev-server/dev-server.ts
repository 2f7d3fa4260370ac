// The embedded Temporal dev server: `temporal server start-dev` with a SQLite file under hermesHome(),
// reused when something already answers Temporal gRPC on the address (e.g. another hermes process).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Connection } from '@temporalio/client';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../shared/defaults';
import { SEARCH_ATTRIBUTE_TYPES } from '../shared/search-attributes';
import { hermesHome } from '../shared/paths';
import { answersTemporal, hostPort, tcpOpen, waitUntilAnswering } from './probe';
import { ensureSearchAttributes, indexedValueType } from '../startup/register-attributes';
import { startWithSdkDownload } from './sdk-download';
import { forgetChild, logTail, spawnServer, stopChild } from './server-process';
import type { DevServer, DevServerOptions } from './server-types';
import { requireTemporalCli } from './temporal-cli';

export { ensureSearchAttributes } from '../startup/register-attributes';
export type { DevServer, DevServerOptions } from './server-types';

const DEFAULT_PORT = 7233;
const DEFAULT_START_TIMEOUT_MS = 60_000;
/** When the port is taken but does not answer Temporal yet (another process may be starting a server). */
const FOREIGN_PORT_WAIT_MS = 15_000;

function envInt(name: string): number | undefined {
  const raw = process.env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new Error(`${name}=${raw} is not a valid port`);
  return n;
}

function uiHost(ip: string): string {
  if (ip === '0.0.0.0' || ip === '::') return 'localhost';
  return ip.includes(':') ? `[${ip}]` : ip;
}

/**
 * Starts (or reuses) a local Temporal dev server with a SQLite file under `home`.
 * Resolves once the frontend answers getSystemInfo and the search attributes exist.
 */
export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  const t0 = Date.now();
  const home = path.resolve(opts.home ?? hermesHome());
  fs.mkdirSync(home, { recursive: true });
  const port = opts.port ?? envInt('HERMES_TEMPORAL_PORT') ?? DEFAULT_PORT;
  const uiPort = opts.uiPort ?? envInt('HERMES_UI_PORT') ?? port + 1000;
  const ip = opts.ip ?? '127.0.0.1';
  const namespace = opts.namespace ?? 'default';
  const searchAttributes: Record<string, string> = opts.searchAttributes ?? SEARCH_ATTRIBUTE_TYPES;
  const logFile = path.resolve(opts.logFile ?? path.join(home, 'temporal-server.log'));
  const dbFile = path.resolve(opts.dbFile ?? path.join(home, 'temporal.db'));
  const timeoutMs = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const warn = opts.warn ?? ((m: string) => console.warn(m));
  const address = hostPort(ip, port);
  const uiUrl = `http://${uiHost(ip)}:${uiPort}`;
  for (const type of Object.values(searchAttributes)) indexedValueType(type); // validate early

  const reuse = async (conn: Connection): Promise<DevServer> => {
    try {
      await ensureSearchAttributes(conn, namespace, searchAttributes, warn);
    } finally {
      await conn.close().catch(() => {});
    }
    return { address, namespace, uiUrl, reused: true, startupMs: Date.now() - t0, stop: async () => {} };
  };

  // 1. Already running?
  if (await tcpOpen(ip, port)) {
    const conn = await answersTemporal(ip, port, FOREIGN_PORT_WAIT_MS);
    if (conn) return reuse(conn);
    throw new Error(
      `port ${port} on ${ip} is in use but does not answer Temporal gRPC; ` +
        `stop whatever listens there or choose another port (HERMES_TEMPORAL_PORT)`,
    );
  }

  // 2. Find the CLI.
  let executable = opts.executable;
  if (!executable) {
    try {
      executable = await requireTemporalCli({ install: opts.install ?? true });
    } catch (err) {
      if (opts.sdkDownload === false) throw err;
      return startWithSdkDownload({ t0, home, port, uiPort, ip, namespace, searchAttributes, dbFile, uiUrl, opts, warn, cause: err as Error });
    }
  }

  // 3. Spawn.
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    dbFile,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--ip',
    ip,
    '--namespace',
    namespace,
    ...Object.entries(searchAttributes).flatMap(([k, v]) => ['--search-attribute', `${k}=${v}`]),
    '--log-level',
    'warn',
    ...DEV_SERVER_DYNAMIC_CONFIG,
    ...(opts.extraArgs ?? []),
  ];
  const server = spawnServer(executable, args, logFile);
  const { child } = server;

  // 4. Wait until it answers.
  const deadline = t0 + timeoutMs;
  let conn: Connection | undefined;
  try {
    const ready = await waitUntilAnswering(ip, port, deadline, server.exited);
    if (ready === 'exited') {
      forgetChild(child);
      // Lost a race with another process that started a server on the same port? Then use that one.
      const other = (await tcpOpen(ip, port))
        ? await answersTemporal(ip, port, Math.min(FOREIGN_PORT_WAIT_MS, Math.max(0, deadline - Date.now())))
        : undefined;
      if (other) return await reuse(other);
      const spawnError = server.spawnError();
      const how = spawnError ? `could not be started (${spawnError.message})` : `exited with ${child.signalCode ?? `code ${child.exitCode}`}`;
      throw new Error(`Temporal dev server ${how}. Log ${logFile}:\n${logTail(logFile)}`);
    }
    if (ready === 'timeout') {
      throw new Error(
        `Temporal dev server did not answer on ${address} within ${Math.round(timeoutMs / 1000)} s. ` + `Log ${logFile}:\n${logTail(logFile)}`,
      );
    }
    conn = ready;
    // 5. The SQLite file may come from an older version without our search attributes.
    await ensureSearchAttributes(conn, namespace, searchAttributes, warn);
  } catch (err) {
    await stopChild(child);
    throw err;
  } finally {
    await conn?.close().catch(() => {});
  }

  let stopping: Promise<void> | undefined;
  return {
    address,
    namespace,
    uiUrl,
    reused: false,
    startupMs: Date.now() - t0,
    pid: child.pid,
    logFile,
    stop: () => (stopping ??= stopChild(child)),
  };
}
