// `hermes worker` as a real child process (bin/hermes.js), so a test can SIGKILL it the way a machine dies.
// Every process started here is remembered; killAllWorkers() ends the ones still alive.
import { spawn, type ChildProcess } from 'node:child_process';
import { cleanupsAfterEach as afterEachCleanups } from './cleanups';
import { cleanEnv, HERMES_BIN } from './spawn-hermes';

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** Everything the worker wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves once the worker has said it is polling (its startup line on stderr). */
  ready: Promise<void>;
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Milliseconds from spawn to the startup line (undefined until then). */
  startupMs?: number;
}

const live = new Set<WorkerProcess>();

/**
 * `bin`: another copy of bin/hermes.js (another build of the worker, test/versioning.test.ts); `args`: options of
 * `hermes worker` (`--grace 3`, `--health-port N`).
 */
export function startWorkerProcess(
  env: Record<string, string>,
  cwd: string,
  readyTimeoutMs = 30_000,
  bin = HERMES_BIN,
  args: string[] = [],
): WorkerProcess {
  const t0 = Date.now();
  const child = spawn(process.execPath, [bin, 'worker', ...args], {
    cwd,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const w: WorkerProcess = {
    child,
    pid: child.pid!,
    output: () => out,
    exited,
    ready: Promise.resolve(),
  };
  w.ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.stderr!.off('data', onData);
      reject(new Error(`worker ${child.pid} did not start within ${readyTimeoutMs} ms:\n${out}`));
    }, readyTimeoutMs);
    const onData = () => {
      if (!/^hermes worker on /m.test(out)) return;
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      w.startupMs = Date.now() - t0;
      resolve();
    };
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`worker ${child.pid} exited (code ${code}, signal ${signal}) before it was ready:\n${out}`));
    });
  });
  w.ready.catch(() => undefined); // observed by callers; never an unhandled rejection
  live.add(w);
  void exited.then(() => live.delete(w));
  return w;
}

/** SIGKILLs every worker process started here that is still running, and waits for them to go. */
export async function killAllWorkers(): Promise<void> {
  const all = [...live];
  for (const w of all) w.child.kill('SIGKILL');
  await Promise.all(all.map((w) => w.exited));
}

/** The environment of a `hermes worker` process serving a test's task queue with a mock model. */
export function workerEnv(
  o: { address: string; taskQueue: string; baseURL: string; workspace: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: o.address,
    HERMES_TASK_QUEUE: o.taskQueue,
    OPENAI_BASE_URL: o.baseURL,
    OPENAI_API_KEY: 'test',
    HERMES_MODEL: 'mock',
    HERMES_WORKSPACE: o.workspace,
    HERMES_LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Clean-ups run after each test, after every worker process is killed (helpers/cleanups.ts). */
export function cleanupsAfterEach(): Array<() => unknown> {
  return afterEachCleanups(killAllWorkers);
}
