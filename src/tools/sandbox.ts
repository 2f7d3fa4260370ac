// The terminal's sandbox: bubblewrap (`bwrap`, Debian package `bubblewrap`). The command classifier
// (terminal/command-safety.ts) is a guard rail a shell can always be talked around; this is the boundary. A
// sandboxed command sees the whole filesystem read-only except its workspace, gets a private /tmp, no network
// unless allowed, its own pid namespace and no capabilities (root included), and dies with its worker.
//
// Whether bwrap works is found out once per worker (per binary): the binary may be missing, or the kernel may
// refuse the namespaces (user namespaces off, a container without the privilege). A worker never downgrades a
// run that asked for the sandbox: that run fails with the reason instead (checkSandbox, runTool). Outside
// bwrap (no bwrap here, or a run that opts out) commands still get their own pid namespace where the kernel
// allows one (isolation.ts): no filesystem or network boundary, but no view of the worker's processes either.
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isolationWarning, probeIsolation, unshareBinary, type Isolation } from './isolation';

export type SandboxMode = 'bwrap' | 'none';
/** A worker's setting: `auto` is bwrap where it works, else none (with a warning at start-up). */
export type SandboxSetting = 'auto' | SandboxMode;
export const SANDBOX_SETTINGS: readonly SandboxSetting[] = ['auto', 'bwrap', 'none'];

/** What one terminal call runs under (ToolContext.sandbox). */
export interface SandboxChoice {
  mode: SandboxMode;
  /** A sandboxed command may use the network (the host's); otherwise it has none, not even loopback to the host. */
  network: boolean;
  /** The bwrap binary (default `bwrap` on PATH). */
  bwrap?: string;
  /** What a command runs under outside bwrap (isolation.ts); absent: the terminal probes for itself. */
  isolation?: Isolation;
}

/** What one terminal command actually ran under: bwrap, the namespace launcher, or nothing at all. */
export type Confinement = 'bwrap' | 'namespace' | 'none';

export type BwrapProbe = { ok: true; bwrap: string; ms: number } | { ok: false; bwrap: string; reason: string };

/** The bwrap binary: HERMES_BWRAP_PATH (also a test seam: point it at nothing to get a worker without one), else PATH. */
export function bwrapBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.HERMES_BWRAP_PATH?.trim() || 'bwrap';
}

const PROBE_TIMEOUT_MS = 10_000;
const probes = new Map<string, Promise<BwrapProbe>>();

/**
 * Whether `bwrap` can start a sandbox here: runs `true` in one with the same namespaces a command gets. The
 * verdict (with the reason when it is no) is cached per binary for the life of the process; `fresh` asks again.
 */
export function probeBwrap(bwrap: string = bwrapBinary(), opts: { fresh?: boolean } = {}): Promise<BwrapProbe> {
  let p = probes.get(bwrap);
  if (!p || opts.fresh) {
    p = runProbe(bwrap);
    probes.set(bwrap, p);
  }
  return p;
}

function runProbe(bwrap: string): Promise<BwrapProbe> {
  const t0 = process.hrtime.bigint();
  return new Promise<BwrapProbe>((resolve) => {
    let stderr = '';
    let done = false;
    const settle = (r: BwrapProbe) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(bwrap, [...bwrapArgs({ workspace: os.tmpdir(), network: false }), 'true'], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      settle({ ok: false, bwrap, reason: `${bwrap} cannot be started: ${(err as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle({ ok: false, bwrap, reason: `${bwrap} did not start a sandbox within ${PROBE_TIMEOUT_MS / 1000} s` });
    }, PROBE_TIMEOUT_MS);
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', (err: NodeJS.ErrnoException) => {
      const reason =
        err.code === 'ENOENT'
          ? bwrap.includes('/')
            ? `bubblewrap is not installed: ${bwrap} does not exist`
            : 'bubblewrap is not installed (no `bwrap` on PATH; Debian/Ubuntu: apt-get install bubblewrap)'
          : `${bwrap} cannot be started: ${err.message}`;
      settle({ ok: false, bwrap, reason });
    });
    child.on('close', (code, signal) => {
      if (code === 0) return settle({ ok: true, bwrap, ms: Number(process.hrtime.bigint() - t0) / 1e6 });
      const why = stderr.trim().split('\n').slice(-3).join('; ') || (signal ? `killed by ${signal}` : `exit code ${code}`);
      settle({
        ok: false,
        bwrap,
        reason: `bubblewrap cannot create its namespaces here (user namespaces off, or a container without the privilege): ${why}`,
      });
    });
  });
}

/** Parses a sandbox setting (HERMES_SANDBOX, the worker option); undefined stays undefined. */
export function parseSandboxSetting(value: string | undefined, source = 'HERMES_SANDBOX'): SandboxSetting | undefined {
  const v = value?.trim().toLowerCase();
  if (!v) return undefined;
  if ((SANDBOX_SETTINGS as readonly string[]).includes(v)) return v as SandboxSetting;
  throw new Error(`${source}=${value}: expected one of ${SANDBOX_SETTINGS.join(', ')}`);
}

function truthy(v: string | undefined): boolean {
  return /^(1|true|yes|on)$/i.test(v?.trim() ?? '');
}

/** What a worker runs `terminal` under when the run does not say. */
export interface WorkerSandbox {
  setting: SandboxSetting;
  /** The default for runs that do not choose. */
  mode: SandboxMode;
  network: boolean;
  bwrap: string;
  /** The probe's verdict; absent when the setting is `none` (then bwrap is probed when a run asks for it). */
  probe?: BwrapProbe;
  /** Set when `auto` fell back to none: "terminal runs without a sandbox: <reason>". */
  warning?: string;
  /**
   * Outside bwrap (the default `none`, or runs that opt out): the namespace launcher, or none (isolation.ts).
   * Absent (a hand-made WorkerSandbox): the terminal probes for itself.
   */
  isolation?: Isolation;
  /** Set when there is no isolation: what commands outside bwrap can read. */
  isolationWarning?: string;
}

export class SandboxUnavailableError extends Error {
  override name = 'SandboxUnavailableError';
}

export interface WorkerSandboxOptions {
  /** Default: HERMES_SANDBOX, else `auto`. */
  setting?: SandboxSetting;
  /** Default: HERMES_SANDBOX_NETWORK=1. */
  network?: boolean;
  /** Default: HERMES_BWRAP_PATH, else `bwrap` on PATH. */
  bwrap?: string;
  /** Default: HERMES_UNSHARE_PATH, else `unshare` on PATH. */
  unshare?: string;
  env?: NodeJS.ProcessEnv;
}

/** The worker's default sandbox. Throws SandboxUnavailableError when bwrap is required and does not work. */
export async function resolveWorkerSandbox(opts: WorkerSandboxOptions = {}): Promise<WorkerSandbox> {
  const env = opts.env ?? process.env;
  const setting = opts.setting ?? parseSandboxSetting(env.HERMES_SANDBOX) ?? 'auto';
  const source = opts.setting ? `sandbox: 'bwrap'` : 'HERMES_SANDBOX=bwrap';
  const network = opts.network ?? truthy(env.HERMES_SANDBOX_NETWORK);
  const bwrap = opts.bwrap ?? bwrapBinary(env);
  // Probed also where bwrap works: a run may opt out of the sandbox.
  const probingIsolation = probeIsolation(opts.unshare ?? unshareBinary(env));
  const probe = setting === 'none' ? undefined : await probeBwrap(bwrap);
  if (setting === 'bwrap' && probe?.ok === false) {
    throw new SandboxUnavailableError(`the worker requires the bubblewrap sandbox (${source}) but ${probe.reason}`);
  }
  const mode: SandboxMode = probe?.ok ? 'bwrap' : 'none';
  const isolation = await probingIsolation;
  const exposed = isolationWarning(isolation, mode === 'bwrap');
  return {
    setting,
    mode,
    network,
    bwrap,
    ...(probe ? { probe } : {}),
    ...(probe?.ok === false ? { warning: `terminal runs without a sandbox: ${probe.reason}` } : {}),
    isolation,
    ...(exposed ? { isolationWarning: exposed } : {}),
  };
}

/** The run's choice over the worker's default: a run may ask for the sandbox, or opt out of it, and allow network. */
export function sandboxFor(worker: WorkerSandbox | undefined, run?: { mode?: SandboxMode; network?: boolean }): SandboxChoice {
  return {
    mode: run?.mode ?? worker?.mode ?? 'none',
    network: run?.network ?? worker?.network ?? false,
    bwrap: worker?.bwrap ?? bwrapBinary(),
    ...(worker?.isolation ? { isolation: worker.isolation } : {}),
  };
}

/** The directory under /run that /etc/resolv.conf links into, if it does. */
function resolvConfDir(): string | undefined {
  try {
    const real = realpathSync('/etc/resolv.conf');
    return isInside('/run', real) ? path.dirname(real) : undefined;
  } catch {
    return undefined;
  }
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

export interface BwrapArgsOptions {
  /** Absolute, real path: the one writable directory. */
  workspace: string;
  network: boolean;
  /** Working directory inside the sandbox (default: the workspace). */
  cwd?: string;
  /** HOME, kept visible (read-only) when a private mount would hide it. */
  home?: string;
}

/**
 * bwrap's arguments, up to the command. Order matters: later mounts go on top of earlier ones, so the private
 * /tmp and /run come before the workspace (which may live under /tmp).
 *
 * No `--new-session`: the terminal spawns bwrap detached (a new session without a controlling terminal, so
 * there is no TIOCSTI to guard against), and everything inside stays in bwrap's process group, so one kill of
 * the group reaches the command and its children (the interrupt, the timeout and the crash clean-up in
 * orphans.ts rely on that). `--unshare-pid` makes bwrap the namespace's init: when the command ends, whatever
 * it left in the background is killed with it; `--die-with-parent` takes the tree down with a dying worker.
 */
export function bwrapArgs(o: BwrapArgsOptions): string[] {
  // prettier-ignore
  const args = [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    // Sockets of host daemons live in /run (a root-owned command could ask systemd or docker to act outside).
    '--tmpfs', '/run',
  ];
  // The DNS configuration may live there too (/etc/resolv.conf → /run/systemd/resolve/…, /run/resolvconf/…).
  const dns = resolvConfDir();
  if (dns) args.push('--ro-bind-try', dns, dns);
  const home = o.home ?? os.homedir();
  if (home && (isInside('/tmp', home) || isInside('/run', home)) && !isInside(o.workspace, home)) {
    args.push('--ro-bind-try', home, home);
  }
  // prettier-ignore
  args.push(
    '--bind', o.workspace, o.workspace,
    '--setenv', 'TMPDIR', '/tmp',
    // Root inside keeps uid 0 but no capabilities: it cannot remount / read-write or undo the other mounts.
    '--cap-drop', 'ALL',
    '--unshare-pid',
    '--unshare-ipc',
    ...(o.network ? [] : ['--unshare-net']),
    '--die-with-parent',
    '--chdir', o.cwd ?? o.workspace,
  );
  return args;
}

/**
 * The program and arguments that run `bash -c command` under `choice`: bwrap; outside it the namespace launcher
 * of `isolation` (isolation.ts), or bash alone when there is none.
 */
export function wrapCommand(
  choice: SandboxChoice | undefined,
  command: string,
  o: { workspace: string; cwd: string; isolation?: Isolation },
): { file: string; args: string[]; confinement: Confinement } {
  if (choice?.mode === 'bwrap') {
    return {
      file: choice.bwrap ?? bwrapBinary(),
      args: [...bwrapArgs({ workspace: o.workspace, network: choice.network, cwd: o.cwd }), 'bash', '-c', command],
      confinement: 'bwrap',
    };
  }
  const iso = o.isolation ?? choice?.isolation;
  if (iso?.kind === 'namespace') {
    return { file: iso.launcher[0]!, args: [...iso.launcher.slice(1), 'bash', '-c', command], confinement: 'namespace' };
  }
  return { file: 'bash', args: ['-c', command], confinement: 'none' };
}
