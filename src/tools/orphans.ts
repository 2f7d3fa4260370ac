// Terminal processes outliving a crashed worker. The terminal tool starts each command as its own process group
// (detached), so a worker that is SIGKILLed — or whose machine loses power mid-call — cannot take the group
// down with it. Each group is written down here while it runs; a worker starting on the same host kills the
// groups whose owner is gone. Nothing is killed on a guess: a group counts as ours only while its leader is the
// very process we started (pid + start time from /proc), or — once the leader has exited — while a member
// still carries the command's random token in its environment. Where /proc is missing (macOS) nothing is
// recorded and the sweep does nothing. The record directory is used only if this user alone can write to it.
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Environment variable a terminal command runs with: identifies its group's members after the leader exits. */
export const TOKEN_ENV = 'HERMES_TERMINAL_TOKEN';

export interface ProcessRecord {
  pgid: number;
  /** Clock ticks since boot when the group leader started (/proc/<pid>/stat field 22). */
  started: string;
  token: string;
  owner: number;
  ownerStarted: string;
  command: string;
  workflowId?: string;
  callId?: string;
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
 * The record directory, created if needed — or undefined when it cannot be trusted: it lives in a shared temp
 * dir, so it must be a real directory (no symlink) that this user owns and nobody else can write to.
 */
function trustedDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
    return st.isDirectory() && mine && (st.mode & 0o077) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

let selfStarted: string | undefined;

/** Writes the record down, synchronously: a crash right after the spawn must still leave it behind. */
export function recordProcess(dir: string, rec: Omit<ProcessRecord, 'started' | 'owner' | 'ownerStarted'>): void {
  const started = procState(rec.pgid)?.started;
  selfStarted ??= processStartTime(process.pid);
  if (!started || !selfStarted || !trustedDir(dir)) return;
  try {
    const full: ProcessRecord = { ...rec, started, owner: process.pid, ownerStarted: selfStarted };
    writeFileSync(path.join(dir, `${rec.pgid}.json`), JSON.stringify(full), { mode: 0o600 });
  } catch {
    // Best effort: without the record only the crash clean-up is lost, not the tool call.
  }
}

/** Never throws: it runs in process event callbacks, where an exception would take the worker down. */
export function forgetProcess(dir: string, pgid: number): void {
  try {
    rmSync(path.join(dir, `${pgid}.json`), { force: true });
  } catch {
    // a record left behind is removed by a later sweep
  }
}

export interface SweepResult {
  /** Groups whose owner was gone and that were killed. */
  killed: ProcessRecord[];
  /** Stale records removed (the group had already ended). */
  removed: number;
}

/** Kills the process groups left behind by dead workers on this host; keeps those of live ones. */
export function killOrphans(dir: string = defaultProcessDir()): SweepResult {
  const result: SweepResult = { killed: [], removed: 0 };
  const trusted = trustedDir(dir);
  if (!trusted) return result;
  let names: string[];
  try {
    names = readdirSync(trusted).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return result;
  }
  for (const name of names) {
    const file = path.join(trusted, name);
    let rec: ProcessRecord;
    try {
      if (!lstatSync(file).isFile()) continue; // never open a FIFO or follow a link
      rec = JSON.parse(readFileSync(file, 'utf8')) as ProcessRecord;
    } catch {
      continue; // being written right now, or not a record
    }
    if (processStartTime(rec.owner) === rec.ownerStarted) continue; // its worker still runs it
    const leader = procState(rec.pgid);
    // Our leader (even as a zombie) still holds the pid, so the group is ours; a different process under that
    // pid means our group ended and the pid was reused. Without a leader, the members must show the token.
    const ours = leader ? leader.started === rec.started : Boolean(rec.token) && memberHasToken(rec.pgid, rec.token);
    if (ours) {
      try {
        process.kill(-rec.pgid, 'SIGKILL');
        result.killed.push(rec);
      } catch {
        result.removed++; // ESRCH: ended in the meantime
      }
    } else {
      result.removed++;
    }
    forgetProcess(trusted, rec.pgid);
  }
  return result;
}
