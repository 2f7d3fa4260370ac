// terminal in the tool activity: bash in its own process group, in the sandbox or a namespace when the worker has
// one (../sandbox.ts, ../isolation.ts), written down for the crash clean-up (../orphans.ts). Heartbeats carry
// heartbeat-details.ts; output keeps head and tail (output-buffer.ts); a timeout or cancel kills the whole group.
import { spawn } from 'node:child_process';
import { builtinTool, ToolError, type ToolHandler } from '../handler';
import { TERMINAL_MAX_TIMEOUT_SEC, terminalSpec } from './spec';
import { forgetProcess, groupStillOurs, newToken, recordPending, recordProcess, signalTokenHolders, TOKEN_ENV } from '../orphans';
import { toolEnv } from '../env';
import { probeIsolation } from '../isolation';
import { wrapCommand } from '../sandbox';
import { resolveInWorkspace } from '../workspace';
import { statOrFail } from '../handler-helpers/fs-util';
import { HeadTailBuffer } from './output-buffer';
import { TerminalProgress } from './heartbeat-details';

export const MAX_CAPTURE_CHARS = 1024 * 1024;
const KILL_GRACE_MS = 2000;
/** After bash exits, wait this long for its pipes to close (a background child may hold them open forever). */
const DRAIN_MS = 300;

/** Signals the whole process group: bash's children (sleep, npm, a dev server) die with it. */
function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: the group is already gone
  }
}

function abortError(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const err = new Error(typeof signal.reason === 'string' ? signal.reason : 'The operation was aborted');
  err.name = 'AbortError';
  return err;
}

/** The kernel's limit on one argument (MAX_ARG_STRLEN, with its terminating NUL): `bash -c` gets the command as one. */
const MAX_COMMAND_BYTES = 128 * 1024 - 1;

export const terminal: ToolHandler<typeof terminalSpec.schema> = async (args, ctx) => {
  ctx.signal.throwIfAborted();
  // Said here: past the limit, spawn fails with a bare "spawn E2BIG" that tells the model nothing.
  const bytes = Buffer.byteLength(args.command);
  if (bytes > MAX_COMMAND_BYTES) {
    throw new ToolError(
      `the command is ${bytes} bytes, more than one command line may be (128 KiB): write it to a file with write_file and run the file`,
    );
  }
  const cwd = await resolveInWorkspace(ctx.workspace, args.cwd ?? '.');
  if (!(await statOrFail(cwd, args.cwd ?? '.')).isDirectory()) throw new ToolError(`cwd ${args.cwd} is not a directory`);
  const timeoutSec = Math.min(TERMINAL_MAX_TIMEOUT_SEC, args.timeout ?? ctx.terminalTimeoutSec);

  // The token marks the group's members for the crash clean-up (orphans.ts), also after bash has exited, and
  // without a pid namespace it finds the children that left the group (setsid).
  const token = newToken();
  // Outside bwrap: the namespace launcher the worker found (isolation.ts), else this process's own probe.
  const isolation = ctx.sandbox?.mode === 'bwrap' ? undefined : (ctx.sandbox?.isolation ?? (await probeIsolation()));
  // detached: bash (or bwrap or the launcher around it) leads a new process group, so one kill(-pid) reaches
  // everything that stayed in it; a pid namespace reaches the rest.
  const run = wrapCommand(ctx.sandbox, args.command, { workspace: ctx.workspace, cwd, isolation });
  const confined = run.confinement;
  // Again after the awaits: an abort that came during them would find no listener below.
  ctx.signal.throwIfAborted();
  // Written down before the spawn as well: the command runs from its exec on, and a worker that dies before the
  // record below (seen on a loaded host) would leave it to nobody. The next worker kills what carries the token.
  const described = { token, command: args.command.slice(0, 200), workflowId: ctx.workflowId, callId: ctx.callId };
  recordPending(ctx.processDir, described);
  const start = () =>
    spawn(run.file, run.args, {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // No pagers or prompts: there is no terminal on the other side.
      // Only the allow-listed variables and passEnv (env.ts): never the worker's keys.
      env: toolEnv(ctx.passEnv, { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', TERM: 'dumb', [TOKEN_ENV]: token }),
    });
  let child: ReturnType<typeof start>;
  try {
    child = start();
  } catch (err) {
    forgetProcess(ctx.processDir, undefined, token); // refused at once (a NUL byte in the command): nothing started
    throw err;
  }
  const pgid = child.pid;
  // Written down while it runs: if this worker dies, the next one on this host kills the group (orphans.ts). A spawn
  // that fails later (no pid) is forgotten by its 'error' event.
  if (pgid !== undefined) recordProcess(ctx.processDir, { ...described, pgid });
  let killing = false;
  const forget = () => forgetProcess(ctx.processDir, pgid, token);
  const out = new HeadTailBuffer(MAX_CAPTURE_CHARS);
  const progress = new TerminalProgress(args.command, confined, ctx.redact);
  const take = (s: string) => {
    out.push(s);
    progress.push(s);
  };
  child.stdout.setEncoding('utf8').on('data', take);
  child.stderr.setEncoding('utf8').on('data', take);

  return new Promise<string>((resolve, reject) => {
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    // Frequent heartbeats are how a cancellation (interrupt) reaches this process quickly. The worker sends at
    // most one per throttle interval (worker.ts), with the latest details.
    const heartbeat = setInterval(() => ctx.heartbeat(progress.details()), 100);

    const kill = () => {
      if (pgid === undefined) return;
      const pid = pgid;
      killing = true;
      // unshare blocks SIGTERM and the namespace's init ignores it; killing unshare kills its init
      // (--kill-child), which kills the whole namespace — as bwrap dying of the SIGTERM does. No SIGTERM to the
      // group then: it would end the running command while bash (the init, untouched) goes on with the rest of the
      // line (`sleep 30; echo slow > side.txt`) until the kernel's SIGKILL reaches it. child.kill is a no-op once
      // Node has reaped it, so it never hits a recycled pid.
      if (confined === 'namespace') child.kill('SIGKILL');
      else signalGroup(pid, 'SIGTERM');
      if (confined === 'none') signalTokenHolders(token, 'SIGTERM');
      // Not cleared on finish: a child that ignores SIGTERM must still die after bash has gone. Not unref'd: a
      // worker shutting down waits for it. The record stays until then, for the crash clean-up.
      setTimeout(() => {
        // Only while the group is still this command's: once it has ended, its pid may name someone else's.
        if (groupStillOurs(pid, token)) signalGroup(pid, 'SIGKILL');
        signalTokenHolders(token, 'SIGKILL');
        forget();
      }, KILL_GRACE_MS);
    };
    const finish = () => {
      if (settled || !exit) return;
      settled = true;
      if (!killing) forget();
      clearInterval(heartbeat);
      timers.forEach(clearTimeout);
      ctx.signal.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      if (aborted) return reject(abortError(ctx.signal));
      const text = out.toString();
      const body = text === '' ? '(no output)' : text.endsWith('\n') ? text.slice(0, -1) : text;
      const status = timedOut
        ? `timed out after ${timeoutSec} s; the command and its child processes were killed`
        : exit.code !== null
          ? `exit code: ${exit.code}`
          : `killed by signal ${exit.signal}`;
      resolve(`${body}\n${status}`);
    };
    const onAbort = () => {
      aborted = true;
      kill();
    };

    ctx.signal.addEventListener('abort', onAbort, { once: true });
    timers.push(
      setTimeout(() => {
        timedOut = true;
        kill();
      }, timeoutSec * 1000),
    );
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      if (!killing) forget();
      clearInterval(heartbeat);
      timers.forEach(clearTimeout);
      ctx.signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // What the command left running ends with it (`sleep 100 &`, `nohup … &`, `setsid …`): in a pid
      // namespace the kernel has killed it already; without one, whatever still carries the token is.
      if (confined === 'none') signalTokenHolders(token, 'SIGKILL');
      timers.push(setTimeout(finish, DRAIN_MS));
    });
    child.on('close', finish);
  });
};

export const terminalTool = builtinTool(terminalSpec, terminal);
