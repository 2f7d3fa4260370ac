// Terminal processes outliving a crashed worker. The terminal tool starts each command as its own process group
// (detached), so a worker that is SIGKILLed — or whose machine loses power mid-call — cannot take the group
// down with it. Each group is written down here while it runs; a worker starting on the same host kills the
// groups whose owner is gone. Start times from /proc tell a live process from a recycled pid on both sides,
// so nothing is killed on a guess; where /proc is missing (macOS) the sweep does nothing.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ProcessRecord {
  pgid: number;
  /** Clock ticks since boot when the group leader started (/proc/<pid>/stat field 22). */
  started: string;
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

interface ProcState {
  /** Clock ticks since boot when it started: with the pid, identifies one process across pid reuse. */
  started: string;
  /** Exited, waiting for its parent to reap it. */
  zombie: boolean;
}

/** /proc/<pid>/stat of a process, or undefined when there is no such process (or no /proc). */
function procState(pid: number): ProcState | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count fields after its closing paren.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { started: fields[19]!, zombie: fields[0] === 'Z' };
  } catch {
    return undefined;
  }
}

/** Start time of a running (not zombie) process, or undefined. */
export function processStartTime(pid: number): string | undefined {
  const s = procState(pid);
  return s && !s.zombie ? s.started : undefined;
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let selfStarted: string | undefined;

/** Writes the record down, synchronously: a crash right after the spawn must still leave it behind. */
export function recordProcess(dir: string, rec: Omit<ProcessRecord, 'started' | 'owner' | 'ownerStarted'>): void {
  const started = procState(rec.pgid)?.started;
  selfStarted ??= processStartTime(process.pid);
  if (!started || !selfStarted) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const full: ProcessRecord = { ...rec, started, owner: process.pid, ownerStarted: selfStarted };
    writeFileSync(path.join(dir, `${rec.pgid}.json`), JSON.stringify(full));
  } catch {
    // Best effort: without the record only the crash clean-up is lost, not the tool call.
  }
}

export function forgetProcess(dir: string, pgid: number): void {
  rmSync(path.join(dir, `${pgid}.json`), { force: true });
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
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return result;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    let rec: ProcessRecord;
    try {
      rec = JSON.parse(readFileSync(file, 'utf8')) as ProcessRecord;
    } catch {
      continue; // being written right now, or not ours
    }
    if (processStartTime(rec.owner) === rec.ownerStarted) continue; // its worker still runs it
    // The leader (bash) identifies the group. With the leader gone but the group still there, the members are
    // the ones it started: the kernel gives no new process a pid still in use as a process group id.
    const leader = procState(rec.pgid);
    const ours = leader ? leader.started === rec.started : groupExists(rec.pgid);
    if (ours) {
      try {
        process.kill(-rec.pgid, 'SIGKILL');
        result.killed.push(rec);
      } catch {
        result.removed++; // ESRCH: ended in the meantime; EPERM: not ours to kill
      }
    } else {
      result.removed++;
    }
    rmSync(file, { force: true });
  }
  return result;
}
