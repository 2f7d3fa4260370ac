// A fresh workspace per task run, made on the machine running `hermes eval`: the fixture folder copied, then the
// setup commands run in it. The conversation's worker must see the same path (embedded mode: the in-process
// worker; a cluster: a shared filesystem, see `--workdir`).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { EvalTask } from './suite';

/** Output of a command run for the eval (setup or check): exit code, stdout and stderr together, cut at 64 KiB. */
export interface CommandRun {
  code: number | null;
  output: string;
  timedOut: boolean;
}

const OUTPUT_CAP = 64 * 1024;

export function runCommand(command: string, cwd: string, timeoutSec = 60): Promise<CommandRun> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const add = (d: Buffer) => {
      if (output.length < OUTPUT_CAP) output += d.toString('utf8');
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL'); // the whole process group: a check's `sleep` must not outlive it
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutSec * 1000);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${output}${err.message}`, timedOut });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.slice(0, OUTPUT_CAP), timedOut });
    });
  });
}

/** Makes `dir` (absent before) the task's workspace; throws with the failing step named. */
export async function prepareWorkspace(task: EvalTask, dir: string): Promise<void> {
  mkdirSync(path.dirname(dir), { recursive: true });
  if (task.fixture) cpSync(task.fixture, dir, { recursive: true, errorOnExist: true, force: false });
  else mkdirSync(dir);
  for (const cmd of task.setup) {
    const r = await runCommand(cmd, dir, 120);
    if (r.code !== 0) throw new Error(`setup command \`${cmd}\` ${r.timedOut ? 'timed out' : `exited ${r.code}`}: ${r.output.trim().slice(-500)}`);
  }
}
