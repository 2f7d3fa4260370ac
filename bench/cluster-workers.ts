// `hermes worker` processes (bin/hermes.js, started directly: npx would not pass a SIGKILL on) for the cluster bench
// and the soak, with the environment the cluster tier gives its workers (test/cluster/cluster.ts). Test helpers'
// worker-process.ts registers vitest hooks, so the bench starts its own; the environment is the tests' cleanEnv.
import { spawn, type ChildProcess } from 'node:child_process';
import { cleanEnv, HERMES_BIN } from '../test/helpers/spawn-hermes';

export interface BenchWorker {
  child: ChildProcess;
  pid: number;
  startedAt: number;
  /** The last 20,000 characters the worker wrote. */
  tail(): string;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface WorkerSetting {
  address: string;
  taskQueue: string;
  baseURL: string;
  workspace: string;
  processDir: string;
  /**
   * Where the workers keep workspace checkpoints (src/checkpoints: git snapshots before and after every
   * file-changing call); undefined: HERMES_CHECKPOINTS=off. Never the install's .hermes: the bench cleans up after itself.
   */
  checkpointDir?: string;
}

export function startBenchWorker(s: WorkerSetting, readyTimeoutMs = 120_000): BenchWorker {
  const env = cleanEnv({
    TEMPORAL_ADDRESS: s.address,
    HERMES_TASK_QUEUE: s.taskQueue,
    OPENAI_BASE_URL: s.baseURL,
    OPENAI_API_KEY: 'bench',
    HERMES_MODEL: 'mock',
    HERMES_WORKSPACE: s.workspace,
    HERMES_LOG_LEVEL: 'warn',
    HERMES_PROCESS_DIR: s.processDir,
    // `terminal` runs the marker command directly: no bwrap or unshare on the hot path.
    HERMES_SANDBOX: 'none',
    HERMES_UNSHARE_PATH: '/nonexistent/unshare',
    ...(s.checkpointDir ? { HERMES_CHECKPOINT_DIR: s.checkpointDir } : { HERMES_CHECKPOINTS: 'off' }),
  });
  const child = spawn(process.execPath, [HERMES_BIN, 'worker'], { cwd: s.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: string) => {
    out = (out + d).slice(-20_000);
  };
  child.stdout!.setEncoding('utf8').on('data', keep);
  child.stderr!.setEncoding('utf8').on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker ${child.pid} not ready within ${readyTimeoutMs} ms:\n${out}`)), readyTimeoutMs);
    const onData = () => {
      if (!/^hermes worker on /m.test(out)) return;
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      resolve();
    };
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`worker ${child.pid} exited (code ${code}, signal ${signal}) before it was ready:\n${out}`));
    });
  });
  ready.catch(() => undefined); // awaited by the caller
  return { child, pid: child.pid!, startedAt: Date.now(), tail: () => out, ready, exited };
}

/** SIGTERM (the worker drains and exits), SIGKILL if it is still there after `graceMs`. */
export async function stopBenchWorker(w: BenchWorker, graceMs = 15_000): Promise<void> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  w.child.kill('SIGTERM');
  const timer = setTimeout(() => w.child.kill('SIGKILL'), graceMs);
  await w.exited;
  clearTimeout(timer);
}
