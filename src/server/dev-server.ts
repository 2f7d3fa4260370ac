// The embedded Temporal dev server: `temporal server start-dev` with a SQLite file under hermesHome(),
// reused when something already answers Temporal gRPC on the address (e.g. another hermes process).

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { Connection } from '@temporalio/client';
import { DEV_SERVER_DYNAMIC_CONFIG, SEARCH_ATTRIBUTES } from '../shared/defaults';
import { hermesHome } from '../paths';
import { installInstructions, requireTemporalCli } from './temporal-cli';

export interface DevServerOptions {
  /** State directory (SQLite file, server log). Default: hermesHome(). */
  home?: string;
  /** Frontend gRPC port. Default: env HERMES_TEMPORAL_PORT or 7233. */
  port?: number;
  /** Web UI port. Default: env HERMES_UI_PORT or port + 1000. */
  uiPort?: number;
  /** Bind address. Default 127.0.0.1. */
  ip?: string;
  /** Namespace to create at launch ("default" always exists). Default 'default'. */
  namespace?: string;
  /** Search attributes to register, name → type (Text|Keyword|Int|Double|Bool|Datetime|KeywordList). */
  searchAttributes?: Record<string, string>;
  /** Extra arguments for `temporal server start-dev` (e.g. ['--dynamic-config-value', 'K=V']). */
  extraArgs?: string[];
  /** Server output. Default: `<home>/temporal-server.log`. */
  logFile?: string;
  /** SQLite file. Default: `<home>/temporal.db`. */
  dbFile?: string;
  /** Path of the `temporal` CLI. Default: requireTemporalCli({ install }). */
  executable?: string;
  /** Allow installing the CLI into `<hermesHome()>/venv` when it is missing. Default true. */
  install?: boolean;
  /** Last fallback when no CLI is found: the SDK's own download (needs internet). Default true. */
  sdkDownload?: boolean;
  /** How long to wait for the server to answer. Default 60 s. */
  startTimeoutMs?: number;
  /** Where warnings go (search attributes that could not be registered…). Default: console.warn. */
  warn?: (message: string) => void;
}

export interface DevServer {
  /** host:port of the frontend gRPC service. */
  address: string;
  namespace: string;
  uiUrl: string;
  /** True when an already running server was found on the address (stop() is then a no-op). */
  reused: boolean;
  /** Wall-clock milliseconds until the server answered (or was found running). */
  startupMs: number;
  /** Process id of the server started here (undefined when reused or started by the SDK). */
  pid?: number;
  logFile?: string;
  stop(): Promise<void>;
}

const DEFAULT_PORT = 7233;
const DEFAULT_START_TIMEOUT_MS = 60_000;
/** When the port is taken but does not answer Temporal yet (another process may be starting a server). */
const FOREIGN_PORT_WAIT_MS = 15_000;

// IndexedValueType of temporal.api.enums.v1 (stable wire numbers).
const INDEXED_VALUE_TYPES: Record<string, number> = {
  text: 1,
  keyword: 2,
  int: 3,
  double: 4,
  bool: 5,
  datetime: 6,
  keywordlist: 7,
};

function indexedValueType(type: string): number {
  const key = type
    .toLowerCase()
    .replace(/^indexed_value_type_/, '')
    .replace(/_/g, '');
  const v = INDEXED_VALUE_TYPES[key];
  if (v === undefined) throw new Error(`unknown search attribute type ${JSON.stringify(type)}`);
  return v;
}

function typeName(n: number): string {
  const e = Object.entries(INDEXED_VALUE_TYPES).find(([, v]) => v === n);
  return e ? e[0] : String(n);
}

function envInt(name: string): number | undefined {
  const raw = process.env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new Error(`${name}=${raw} is not a valid port`);
  return n;
}

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function uiHost(ip: string): string {
  if (ip === '0.0.0.0' || ip === '::') return 'localhost';
  return ip.includes(':') ? `[${ip}]` : ip;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function grpcCode(err: unknown): number | undefined {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Search attributes

export interface EnsureSearchAttributesResult {
  added: string[];
  existing: string[];
  warnings: string[];
}

/**
 * Registers the search attributes that the namespace lacks. "Already exists" counts as success; permission
 * errors (and any other failure) are reported through `warn` and in the result, never thrown — a worker
 * connecting to a cluster it may not administer must still start.
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  attrs: Record<string, string> = SEARCH_ATTRIBUTES,
  warn: (message: string) => void = (m) => console.warn(m),
): Promise<EnsureSearchAttributesResult> {
  const result: EnsureSearchAttributesResult = { added: [], existing: [], warnings: [] };
  const report = (m: string) => {
    result.warnings.push(m);
    warn(m);
  };
  const wanted: Record<string, number> = {};
  for (const [name, type] of Object.entries(attrs)) wanted[name] = indexedValueType(type);
  if (Object.keys(wanted).length === 0) return result;

  let current: Record<string, number> = {};
  try {
    const res = await connection.operatorService.listSearchAttributes({ namespace });
    current = { ...(res.customAttributes ?? {}), ...(res.systemAttributes ?? {}) } as Record<string, number>;
  } catch (err) {
    report(
      `hermes: could not list search attributes of namespace ${namespace} (${(err as Error).message}); ` +
        `assuming ${Object.keys(wanted).join(', ')} are missing`,
    );
  }

  const missing: Record<string, number> = {};
  for (const [name, type] of Object.entries(wanted)) {
    if (current[name] === undefined) missing[name] = type;
    else {
      result.existing.push(name);
      if (current[name] !== type) {
        report(
          `hermes: search attribute ${name} exists in namespace ${namespace} with type ${typeName(current[name])}, ` +
            `expected ${typeName(type)}`,
        );
      }
    }
  }
  if (Object.keys(missing).length === 0) return result;

  const add = async (subset: Record<string, number>): Promise<void> => {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: subset as never,
    });
  };
  try {
    await add(missing);
    result.added.push(...Object.keys(missing));
  } catch (err) {
    if (grpcCode(err) === 6 /* ALREADY_EXISTS */) {
      // one of them exists (race with another process): add the rest one by one
      for (const [name, type] of Object.entries(missing)) {
        try {
          await add({ [name]: type });
          result.added.push(name);
        } catch (e) {
          if (grpcCode(e) === 6) result.existing.push(name);
          else report(searchAttributeWarning(name, namespace, e));
        }
      }
    } else {
      report(searchAttributeWarning(Object.keys(missing).join(', '), namespace, err));
    }
  }
  return result;
}

function searchAttributeWarning(names: string, namespace: string, err: unknown): string {
  const code = grpcCode(err);
  const why = code === 7 || code === 16 ? 'permission denied' : (err as Error).message;
  return (
    `hermes: could not register search attribute(s) ${names} in namespace ${namespace} (${why}). ` +
    `Conversations still run, but filtering by them in the UI will not work until an admin runs: ` +
    names
      .split(', ')
      .map((n) => `temporal operator search-attribute create --namespace ${namespace} --name ${n} --type Keyword`)
      .join(' ; ')
  );
}

// ---------------------------------------------------------------------------------------------------------
// Probing

function tcpOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** One attempt: a Connection whose getSystemInfo answered, or undefined. */
async function connectOnce(address: string, timeoutMs: number): Promise<Connection | undefined> {
  const conn = Connection.lazy({
    address,
    connectTimeout: timeoutMs,
    // a local server: never go through an HTTP proxy from the environment
    channelArgs: { 'grpc.enable_http_proxy': 0 },
  });
  try {
    await conn.ensureConnected();
    await conn.workflowService.getSystemInfo({});
    return conn;
  } catch {
    await conn.close().catch(() => {});
    return undefined;
  }
}

/** A Connection to a Temporal server answering on host:port within timeoutMs, or undefined. */
async function answersTemporal(host: string, port: number, timeoutMs: number): Promise<Connection | undefined> {
  const deadline = Date.now() + timeoutMs;
  const address = hostPort(host, port);
  for (;;) {
    if (await tcpOpen(host, port)) {
      const conn = await connectOnce(address, Math.max(500, Math.min(3000, deadline - Date.now())));
      if (conn) return conn;
    }
    if (Date.now() >= deadline) return undefined;
    await sleep(200);
  }
}

function logTail(file: string, lines = 30): string {
  try {
    const size = fs.statSync(file).size;
    const len = Math.min(size, 16 * 1024);
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, size - len);
      return buf.toString('utf8').split('\n').slice(-lines).join('\n').trim();
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '(no log)';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Child process bookkeeping: kill started servers when this process exits.

const liveChildren = new Set<ChildProcess>();
let exitHooksInstalled = false;

function killAllChildren(): void {
  for (const child of liveChildren) {
    try {
      child.kill('SIGTERM');
    } catch {
      // already gone
    }
  }
  liveChildren.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', killAllChildren);
  if (!isMainThread) return;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      // Someone else handles this signal (e.g. the CLI's graceful shutdown): leave the server running until
      // 'exit' so their shutdown can still talk to it. Otherwise behave like the default: kill and die.
      if (process.listenerCount(sig) > 1) return;
      killAllChildren();
      process.removeListener(sig, handler);
      process.kill(process.pid, sig);
    };
    process.on(sig, handler);
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  liveChildren.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (await waitForExit(child, 10_000)) return;
  child.kill('SIGKILL');
  await waitForExit(child, 5_000);
}

// ---------------------------------------------------------------------------------------------------------

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
  const searchAttributes: Record<string, string> = opts.searchAttributes ?? SEARCH_ATTRIBUTES;
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
      return startWithSdkDownload({ t0, home, port, uiPort, ip, namespace, searchAttributes, dbFile, opts, warn, cause: err as Error });
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
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.appendFileSync(logFile, `\n=== ${new Date().toISOString()} pid ${process.pid}: ${executable} ${args.join(' ')}\n`);
  const fd = fs.openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(executable, args, { stdio: ['ignore', fd, fd], windowsHide: true });
  } finally {
    fs.closeSync(fd);
  }
  let spawnError: Error | undefined;
  child.on('error', (err) => {
    spawnError = err;
  });
  // Do not keep this process alive just for the server: the 'exit' hook stops it when we are done.
  child.unref();
  installExitHooks();
  liveChildren.add(child);
  const exited = () => spawnError !== undefined || child.exitCode !== null || child.signalCode !== null;

  // 4. Wait until it answers.
  const deadline = t0 + timeoutMs;
  let conn: Connection | undefined;
  try {
    while (!conn) {
      if (exited()) {
        liveChildren.delete(child);
        // Lost a race with another process that started a server on the same port? Then use that one.
        const other = (await tcpOpen(ip, port))
          ? await answersTemporal(ip, port, Math.min(FOREIGN_PORT_WAIT_MS, Math.max(0, deadline - Date.now())))
          : undefined;
        if (other) return await reuse(other);
        const how = spawnError
          ? `could not be started (${spawnError.message})`
          : `exited with ${child.signalCode ?? `code ${child.exitCode}`}`;
        throw new Error(`Temporal dev server ${how}. Log ${logFile}:\n${logTail(logFile)}`);
      }
      if (Date.now() >= deadline) {
        throw new Error(
          `Temporal dev server did not answer on ${address} within ${Math.round(timeoutMs / 1000)} s. ` +
            `Log ${logFile}:\n${logTail(logFile)}`,
        );
      }
      if (await tcpOpen(ip, port, 300)) {
        conn = await connectOnce(address, Math.max(500, Math.min(2000, deadline - Date.now())));
      }
      if (!conn) await sleep(100);
    }
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

interface SdkFallbackArgs {
  t0: number;
  home: string;
  port: number;
  uiPort: number;
  ip: string;
  namespace: string;
  searchAttributes: Record<string, string>;
  dbFile: string;
  opts: DevServerOptions;
  warn: (m: string) => void;
  cause: Error;
}

/** Last resort: let @temporalio/testing download the CLI (needs internet) and run start-dev with it. */
async function startWithSdkDownload(a: SdkFallbackArgs): Promise<DevServer> {
  process.stderr.write('hermes: no Temporal CLI found; trying the SDK download from temporal.download\n');
  // Loaded lazily: @temporalio/testing pulls in the native worker runtime.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { TestWorkflowEnvironment } = require('@temporalio/testing') as typeof import('@temporalio/testing');
  let env: import('@temporalio/testing').TestWorkflowEnvironment;
  try {
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'cached-download', downloadDir: path.join(a.home, 'sdk-download') },
        dbFilename: a.dbFile,
        ip: a.ip,
        port: a.port,
        ui: true,
        uiPort: a.uiPort,
        namespace: a.namespace,
        log: { format: 'pretty', level: 'warn' },
        extraArgs: [
          ...Object.entries(a.searchAttributes).flatMap(([k, v]) => ['--search-attribute', `${k}=${v}`]),
          ...DEV_SERVER_DYNAMIC_CONFIG,
          ...(a.opts.extraArgs ?? []),
        ],
      },
    });
  } catch (err) {
    throw new Error(
      `${a.cause.message}\nThe SDK download fallback failed too: ${(err as Error).message}\n` +
        `(${installInstructions('cli').split('\n')[0]} — see above)`,
    );
  }
  try {
    await ensureSearchAttributes(env.connection, a.namespace, a.searchAttributes, a.warn);
  } catch (err) {
    await env.teardown().catch(() => {});
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    address: env.address,
    namespace: a.namespace,
    uiUrl: `http://${uiHost(a.ip)}:${a.uiPort}`,
    reused: false,
    startupMs: Date.now() - a.t0,
    stop: () => (stopping ??= env.teardown()),
  };
}
