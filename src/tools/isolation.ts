// Process isolation of terminal commands that run outside the bubblewrap sandbox (sandbox.ts): bwrap is
// optional, and without it a command runs as the worker's user — which lets it read the worker's whole
// environment through /proc/<worker pid>/environ (model keys, Temporal credentials: the allow-list of env.ts
// only covers the command's own environment) and detach children (`setsid`, `nohup … &`) that outlive the call.
//
// The launcher puts the command into a new pid namespace with a fresh /proc (util-linux `unshare`): the
// worker's processes are not in it, so there is no /proc/<pid> of theirs to read, and `--kill-child` makes
// the command's bash the namespace's init — when it exits, or its `unshare` is killed, the kernel kills
// everything left in the namespace, whatever session or group it moved to. The command must have no
// capabilities, or it could unmount the fresh /proc and find the host's under it: a non-root user gets a new
// user namespace and runs in it under its own uid (no capabilities after exec); root keeps uid 0 and drops
// them (`setpriv`), as bwrap's `--cap-drop ALL` does. `setpriv --pdeathsig KILL` in front takes the whole
// tree down with a dying worker (bwrap: `--die-with-parent`).
//
// What works is found out once per process, by running a probe through each candidate in turn: the binaries
// may be missing, the kernel may refuse user namespaces (sysctl, AppArmor), a container may refuse both.
// When nothing works the terminal still runs, and the worker says loudly what that exposes (isolationWarning).
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Isolation =
  | {
      kind: 'namespace';
      /** Program and arguments up to the command (`bash -c …` follows). */
      launcher: string[];
      /** For the start-up line and `hermes doctor`. */
      description: string;
      ms: number;
    }
  | { kind: 'none'; reason: string };

/** The unshare binary: HERMES_UNSHARE_PATH (also a test seam: point it at nothing for a worker without isolation), else PATH. */
export function unshareBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.HERMES_UNSHARE_PATH?.trim() || 'unshare';
}

const SETPRIV = 'setpriv';
const NAMESPACES = ['--pid', '--fork', '--mount-proc', '--kill-child'];
const DROP_CAPS = [SETPRIV, '--no-new-privs', '--bounding-set=-all', '--inh-caps=-all', '--ambient-caps=-all'];
const DIE_WITH_WORKER = [SETPRIV, '--pdeathsig', 'KILL'];

interface Candidate {
  launcher: string[];
  description: string;
}

/** The launchers to try, strongest first, for a worker running as `uid`. */
export function isolationCandidates(unshare: string, uid: number): Candidate[] {
  if (uid === 0) {
    return [
      {
        launcher: [...DIE_WITH_WORKER, unshare, ...NAMESPACES, ...DROP_CAPS],
        description: 'their own pid and mount namespaces, as root without capabilities (unshare, setpriv)',
      },
      {
        launcher: [...DIE_WITH_WORKER, unshare, '--user', '--map-current-user', ...NAMESPACES, ...DROP_CAPS],
        description: 'their own user, pid and mount namespaces, as root without capabilities (unshare, setpriv)',
      },
    ];
  }
  return [
    {
      launcher: [...DIE_WITH_WORKER, unshare, '--user', '--map-current-user', ...NAMESPACES],
      description: 'their own user, pid and mount namespaces, under the worker uid without capabilities (unshare)',
    },
    // util-linux before 2.38 has no --map-current-user: root inside the namespace, without its capabilities.
    {
      launcher: [...DIE_WITH_WORKER, unshare, '--user', '--map-root-user', ...NAMESPACES, ...DROP_CAPS],
      description: 'their own user, pid and mount namespaces, as root of that namespace without capabilities (unshare, setpriv)',
    },
    {
      launcher: [unshare, '--user', '--map-current-user', ...NAMESPACES],
      description:
        'their own user, pid and mount namespaces, under the worker uid without capabilities (unshare; no setpriv: not killed with a dying worker)',
    },
  ];
}

/**
 * Passes only where the namespace is real and the command is powerless in it: its shell is the init of a new
 * pid namespace (so /proc is the namespace's, not the host's) and has no effective capability.
 */
const PROBE = ['bash', '-c', '[ "$$" = 1 ] && ! grep -qE "^CapEff:[[:space:]]*0*[1-9a-f]" /proc/self/status'];
const PROBE_TIMEOUT_MS = 10_000;

type Try = { ok: true; ms: number } | { ok: false; why: string };

function tryLauncher(launcher: string[]): Promise<Try> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve) => {
    let stderr = '';
    let done = false;
    const settle = (r: Try) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const child = spawn(launcher[0]!, [...launcher.slice(1), ...PROBE], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH } });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle({ ok: false, why: `no answer within ${PROBE_TIMEOUT_MS / 1000} s` });
    }, PROBE_TIMEOUT_MS);
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', (err: NodeJS.ErrnoException) =>
      settle({ ok: false, why: err.code === 'ENOENT' ? `${launcher[0]} is not installed` : `${launcher[0]}: ${err.message}` }),
    );
    child.on('close', (code, signal) => {
      if (code === 0) return settle({ ok: true, ms: Number(process.hrtime.bigint() - t0) / 1e6 });
      const why =
        stderr.trim().split('\n').slice(-2).join('; ') ||
        (signal ? `killed by ${signal}` : 'the probe found no new pid namespace, or capabilities left');
      settle({ ok: false, why });
    });
  });
}

function onPath(bin: string): boolean {
  const dirs = bin.includes('/') ? [''] : (process.env.PATH ?? '').split(path.delimiter);
  return dirs.some((d) => {
    const file = d ? path.join(d, bin) : bin;
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

async function runProbe(unshare: string): Promise<Isolation> {
  if (process.platform !== 'linux') return { kind: 'none', reason: `no Linux namespaces on ${process.platform}` };
  if (!onPath(unshare))
    return { kind: 'none', reason: unshare.includes('/') ? `${unshare} is not an executable file` : `${unshare} (util-linux) is not installed` };
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
  const tried: string[] = [];
  for (const c of isolationCandidates(unshare, uid)) {
    const r = await tryLauncher(c.launcher);
    if (r.ok) return { kind: 'namespace', launcher: c.launcher, description: c.description, ms: r.ms };
    if (!tried.includes(r.why)) tried.push(r.why);
  }
  return { kind: 'none', reason: tried.join('; ') };
}

const probes = new Map<string, Promise<Isolation>>();

/** What the terminal launches commands under outside bwrap; cached per unshare binary for the life of the process. */
export function probeIsolation(unshare: string = unshareBinary(), opts: { fresh?: boolean } = {}): Promise<Isolation> {
  let p = probes.get(unshare);
  if (!p || opts.fresh) {
    p = runProbe(unshare);
    probes.set(unshare, p);
  }
  return p;
}

function whoRuns(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  let name: string | undefined;
  try {
    name = os.userInfo().username;
  } catch {
    // no passwd entry
  }
  return uid === undefined ? 'as the worker' : `as ${name ? `${name} (uid ${uid})` : `uid ${uid}`}, like the worker`;
}

/**
 * The start-up warning when commands outside bwrap cannot be isolated: what they can reach, and why. With
 * `defaultSandboxed` (the worker's default is bwrap) only runs that opt out (`sandbox: 'none'`) are concerned.
 */
export function isolationWarning(iso: Isolation, defaultSandboxed: boolean): string | undefined {
  if (iso.kind !== 'none') return undefined;
  const who = defaultSandboxed ? 'terminal commands of runs that opt out of the sandbox (sandbox: none)' : 'terminal commands';
  return (
    `${who} run without any process isolation: they run ${whoRuns()}, and can read the worker's whole environment ` +
    `(/proc/<pid>/environ, ps eww: every variable it was started with, model keys and Temporal credentials included) and ` +
    `that of every other process of that user, and children they detach with a cleared environment can outlive ` +
    `the call. No pid namespace here: ${iso.reason}. ` +
    (process.platform === 'linux'
      ? 'Install bubblewrap, or util-linux (unshare, setpriv) on a kernel that allows user namespaces'
      : 'Both bubblewrap and pid namespaces are Linux-only: run the worker in a Linux VM or container to isolate commands')
  );
}
