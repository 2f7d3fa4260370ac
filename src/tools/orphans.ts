// Terminal processes outliving a crashed worker. The terminal tool starts each command as its own process group
// (detached), so a worker that is SIGKILLed — or whose machine loses power mid-call — cannot take the group
// down with it itself. Under bwrap (--die-with-parent) and the namespace launcher (isolation.ts: setpriv
// --pdeathsig) the kernel does; without either, and as a second line behind them, each command is written down
// here, by its token before the spawn and by its group once spawned, while it runs; a worker starting on the same
// host kills the commands whose owner is gone. Nothing is killed on a guess: a group counts as ours only while its
// leader is the very process we started (pid + start time from /proc), or — once the leader has exited, or when
// only the token was written down — while a member still carries the command's random token in its environment.
// Where /proc is missing (macOS) nothing is recorded and the sweep does nothing. The record directory is used only
// if this user alone can write to it.
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Environment variable a terminal command runs with: identifies its group's members after the leader exits. */
export const TOKEN_ENV = 'HERMES_TERMINAL_TOKEN';

/**
 * A command about to start, written down by its token before the spawn: the command runs from its exec on, and a
 * worker that dies before it has written the group down (on a loaded host, after the command has already done
 * things) would otherwise leave it to nobody. A sweep kills what carries the token.
 */
export interface PendingRecord {
  /** /proc/sys/kernel/random/boot_id: pids and start times mean nothing after a reboot. */
  boot: string;
  token: string;
  owner: number;
  ownerStarted: string;
  command: string;
  workflowId?: string;
  callId?: string;
}

/** A running command's process group. */
export interface ProcessRecord extends PendingRecord {
  pgid: number;
  /** Clock ticks since boot when the group leader started (/proc/<pid>/stat field 22). */
  started: string;
}

/** Per user, per host: process ids mean nothing elsewhere. */
export function defaultProcessDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `hermes-terminals-${uid}`);
}

export function newToken(): string {
  return randomBytes(12).toString('hex');
}

interface ProcState {
  /** Clock ticks since boot when it started: with the pid, identifies one process across pid reuse. */
  started: string;
  /** Exited, waiting for its parent to reap it. */
  zombie: boolean;
  pgrp: number;
}

/** /proc/<pid>/stat of a process, or undefined when there is no such process (or no /proc). */
function procState(pid: number | string): ProcState | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count fields after its closing paren.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { started: fields[19]!, zombie: fields[0] === 'Z', pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** Start time of a running (not zombie) process, or undefined. */
export function processStartTime(pid: number): string | undefined {
  const s = procState(pid);
  return s && !s.zombie ? s.started : undefined;
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Whether group `pgid` is still the one started with `token` (a live member carries it), for a kill that comes
 * late. Without /proc there is no telling: true, as before there was a token.
 */
export function groupStillOurs(pgid: number, token: string): boolean {
  return bootId() === undefined || memberHasToken(pgid, token);
}

/** Whether a live member of group `pgid` carries the command's token (so the group is the one we started). */
function memberHasToken(pgid: number, token: string): boolean {
  const needle = `${TOKEN_ENV}=${token}`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return false;
  }
  for (const pid of pids) {
    const s = procState(pid);
    if (!s || s.zombie || s.pgrp !== pgid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(needle)) return true;
    } catch {
      // gone, or not ours to read
    }
  }
  return false;
}

/**
 * Signals every live process that carries the command's token, wherever it is: a child that left the process
 * group (`setsid`, a daemon) still has it in its environment. Where commands run without a pid namespace
 * (isolation.ts), this is how what a command left behind is found. One pass over /proc, reading the environ
 * of each process this user may read (a few ms). Returns how many were signalled; 0 without /proc.
 */
export function signalTokenHolders(token: string, sig: NodeJS.Signals): number {
  const needle = `${TOKEN_ENV}=${token}`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid);
  } catch {
    return 0;
  }
  let n = 0;
  for (const pid of pids) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(needle)) continue;
      if (procState(pid)?.zombie !== false) continue;
      process.kill(Number(pid), sig);
      n++;
    } catch {
      // gone, or not ours to read
    }
  }
  return n;
}

/**
 * Why the record directory cannot be used, or undefined when it can (created if needed). It lives in a shared
 * temp dir, so it must be a real directory (no symlink) that this user owns and nobody else can write to.
 */
export function untrustedDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory()) return 'not a directory';
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return 'owned by another user';
    if ((st.mode & 0o077) !== 0) return `mode ${(st.mode & 0o777).toString(8)}: others can write or read it (needs 700)`;
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const recordFile = (dir: string, pgid: number, token: string) => path.join(dir, `${pgid}-${token}.json`);
const pendingFile = (dir: string, token: string) => path.join(dir, `pending-${token}.json`);

function isPending(v: unknown): v is PendingRecord {
  const r = v as PendingRecord;
  return (
    Boolean(r) &&
    typeof r === 'object' &&
    Number.isInteger(r.owner) &&
    typeof r.ownerStarted === 'string' &&
    typeof r.token === 'string' &&
    /^[0-9a-f]+$/.test(r.token) &&
    typeof r.boot === 'string'
  );
}

function isRecord(v: unknown): v is ProcessRecord {
  const r = v as ProcessRecord;
  return isPending(v) && Number.isInteger(r.pgid) && r.pgid > 1 && typeof r.started === 'string';
}

let selfStarted: string | undefined;

type Described = Pick<PendingRecord, 'token' | 'command' | 'workflowId' | 'callId'>;

/** This worker as a record's owner, or undefined where there is no telling (no /proc, an unusable directory). */
function owner(dir: string): Pick<PendingRecord, 'boot' | 'owner' | 'ownerStarted'> | undefined {
  const boot = bootId();
  selfStarted ??= processStartTime(process.pid);
  if (!boot || !selfStarted || untrustedDir(dir) !== undefined) return undefined;
  return { boot, owner: process.pid, ownerStarted: selfStarted };
}

/** Writes a command down by its token before it is spawned (PendingRecord), synchronously. */
export function recordPending(dir: string, rec: Described): void {
  const me = owner(dir);
  if (!me) return;
  try {
    writeFileSync(pendingFile(dir, rec.token), JSON.stringify({ ...rec, ...me } satisfies PendingRecord), { mode: 0o600 });
  } catch {
    // Best effort: without the record only the crash clean-up is lost, not the tool call.
  }
}

/**
 * Writes the spawned command's group down, synchronously (a crash right after must still leave it behind), in place
 * of its pending record.
 */
export function recordProcess(dir: string, rec: Described & { pgid: number }): void {
  const started = procState(rec.pgid)?.started;
  const me = owner(dir);
  if (!started || !me) return;
  try {
    const full: ProcessRecord = { ...rec, ...me, started };
    writeFileSync(recordFile(dir, rec.pgid, rec.token), JSON.stringify(full), { mode: 0o600 });
    rmSync(pendingFile(dir, rec.token), { force: true });
  } catch {
    // Best effort, as above; a pending record left behind still lets a sweep find the command by its token.
  }
}

/**
 * The command's records are no longer needed (it ended, or never started: `pgid` undefined). Never throws: it runs
 * in process event callbacks, where an exception would take the worker down.
 */
export function forgetProcess(dir: string, pgid: number | undefined, token: string): void {
  try {
    if (pgid !== undefined) rmSync(recordFile(dir, pgid, token), { force: true });
    rmSync(pendingFile(dir, token), { force: true });
  } catch {
    // a record left behind is removed by a later sweep
  }
}

export interface SweepResult {
  /** Commands whose owner was gone and that were killed (`pgid` absent: found by token, from a pending record). */
  killed: Array<PendingRecord & { pgid?: number }>;
  /** Stale records removed (the command had already ended, or never started). */
  removed: number;
}

/**
 * Kills the process groups left behind by dead workers on this host; keeps those of live ones. Never throws:
 * a worker must start whatever the directory holds.
 */
export function killOrphans(dir: string = defaultProcessDir()): SweepResult {
  const result: SweepResult = { killed: [], removed: 0 };
  const boot = bootId();
  if (!boot || untrustedDir(dir) !== undefined) return result;
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^(\d+|pending)-[0-9a-f]+\.json$/.test(n));
  } catch {
    return result;
  }
  for (const name of names) {
    try {
      const file = path.join(dir, name);
      if (!lstatSync(file).isFile()) continue; // never open a FIFO or follow a link
      let rec: unknown;
      try {
        rec = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        continue; // being written right now
      }
      if (name.startsWith('pending-')) {
        sweepPending(file, rec, name, boot, result);
        continue;
      }
      if (!isRecord(rec) || name !== `${rec.pgid}-${rec.token}.json`) continue; // not ours to act on
      if (rec.boot === boot && processStartTime(rec.owner) === rec.ownerStarted) continue; // its worker still runs it
      if (rec.boot === boot && groupIsFrom(rec)) {
        try {
          process.kill(-rec.pgid, 'SIGKILL');
          result.killed.push(rec);
        } catch {
          result.removed++; // ESRCH: ended in the meantime
        }
      } else {
        result.removed++; // ended, or from before a reboot
      }
      forgetProcess(dir, rec.pgid, rec.token);
    } catch {
      // one bad entry must not stop the sweep
    }
  }
  return result;
}

/**
 * A command written down before its spawn and never by its group (its worker died in between): what carries its token
 * is killed, wherever it is.
 */
function sweepPending(file: string, rec: unknown, name: string, boot: string, result: SweepResult): void {
  if (!isPending(rec) || name !== `pending-${rec.token}.json`) return; // not ours to act on
  if (rec.boot === boot && processStartTime(rec.owner) === rec.ownerStarted) return; // its worker still runs it
  if (rec.boot === boot && signalTokenHolders(rec.token, 'SIGKILL') > 0) result.killed.push(rec);
  else result.removed++; // never started, ended, or from before a reboot
  rmSync(file, { force: true });
}

/**
 * Our leader (even as a zombie) still holds the pid, so the group is ours; a different process under that pid
 * means our group ended and the pid was reused. Without a leader, a member must carry the token.
 */
function groupIsFrom(rec: ProcessRecord): boolean {
  const leader = procState(rec.pgid);
  return leader ? leader.started === rec.started : memberHasToken(rec.pgid, rec.token);
}
