// `hermes serve` as the process a user runs (bin/hermes.js), for tests that stop and start it like one.
import { spawn, type ChildProcess } from 'node:child_process';
import { cleanEnv, HERMES_BIN } from './spawn-hermes';
import { waitFor } from './wait';

/** `hermes serve --port 0` as a child process; resolves with its URL once it listens. */
export async function startServeProcess(
  cleanups: Array<() => unknown>,
  env: Record<string, string>,
  cwd: string,
  args: string[] = [],
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [HERMES_BIN, 'serve', '--port', '0', ...args], {
    cwd,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(t);
  });
  const url = await waitFor(
    'hermes serve to listen',
    () => /^hermes serve on (http:\/\/\S+) /m.exec(out)?.[1] ?? (child.exitCode !== null ? `exited: ${out}` : undefined),
    60_000,
  );
  if (url.startsWith('exited')) throw new Error(url);
  return { url, child, output: () => out };
}
