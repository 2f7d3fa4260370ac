// The `temporal server start-dev` child process: started with its output appended to a log file, stopped with
// SIGTERM (then SIGKILL), and killed when this process exits.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread } from 'node:worker_threads';

// Servers started here and still running: killed when this process exits.
const liveChildren = new Set<ChildProcess>();
let exitHooksInstalled = false;

export interface ServerProcess {
  child: ChildProcess;
  /** The process could not be started or has exited. */
  exited: () => boolean;
  /** Why it could not be started, if so. */
  spawnError(): Error | undefined;
}

export function spawnServer(executable: string, args: string[], logFile: string): ServerProcess {
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
  return {
    child,
    exited: () => spawnError !== undefined || child.exitCode !== null || child.signalCode !== null,
    spawnError: () => spawnError,
  };
}

/** The server exited by itself: nothing left to kill when this process exits. */
export function forgetChild(child: ChildProcess): void {
  liveChildren.delete(child);
}

export function logTail(file: string, lines = 30): string {
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

export async function stopChild(child: ChildProcess): Promise<void> {
  liveChildren.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (await waitForExit(child, 10_000)) return;
  child.kill('SIGKILL');
  await waitForExit(child, 5_000);
}
