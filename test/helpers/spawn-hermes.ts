// Runs the real `hermes` command (bin/hermes.js) as a child process, the way a user does, with an environment
// that owes nothing to the shell running the tests: no TEMPORAL_*, OPENAI_*, HERMES_* unless given.
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import path from 'node:path';
import { waitFor } from './wait';

export const HERMES_BIN = path.resolve(__dirname, '../../bin/hermes.js');

export interface HermesRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall-clock milliseconds from spawn to exit. */
  ms: number;
}

export interface SpawnHermesOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Sends SIGTERM (then SIGKILL 5 s later) when the command runs longer. Default 90 s. */
  timeoutMs?: number;
}

/** process.env without anything that would point the command at another server, model or data directory. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(TEMPORAL_|OPENAI_|HERMES_|VITEST)/.test(k)) continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function spawnHermes(args: string[], opts: SpawnHermesOptions = {}): Promise<HermesRun> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HERMES_BIN, ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env: cleanEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    let killer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      stderr += `\n[spawnHermes] timed out after ${opts.timeoutMs ?? 90_000} ms: SIGTERM\n`;
      child.kill('SIGTERM'); // lets the CLI stop the dev server it started
      killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    }, opts.timeoutMs ?? 90_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (killer) clearTimeout(killer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/**
 * A port free now, below the kernel's ephemeral range (32768-60999 on Linux): a test that stops a server and starts it
 * again on the same port must find it still free, and a port from that range can be handed to any outgoing
 * connection of the run's other files in between (seen with four test workers). Here only another test drawing the
 * same number can take it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    // Up to 31,000: a dev server started without a UI port takes port + 1000 for it (src/dev-server/dev-server.ts).
    const port = 20_000 + Math.floor(Math.random() * 11_000);
    if (await canListen(port)) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * A `hermes` command that serves (serve, mcp --http) as a child process, stopped (SIGTERM, then SIGKILL 5 s later)
 * by the clean-up it pushes; resolves with the first group of `listening` in its output once it prints it.
 */
export async function spawnListening(
  args: string[],
  opts: { env: Record<string, string>; cwd: string },
  cleanups: Array<() => unknown>,
  listening: RegExp,
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [HERMES_BIN, ...args], { cwd: opts.cwd, env: cleanEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(t);
  });
  const url = await waitFor(
    `hermes ${args[0]} to listen`,
    () => listening.exec(out)?.[1] ?? (child.exitCode !== null ? `exited: ${out}` : undefined),
    60_000,
  );
  if (url.startsWith('exited')) throw new Error(url);
  return { url, child, output: () => out };
}
