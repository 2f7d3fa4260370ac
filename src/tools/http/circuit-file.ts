// Circuit states are kept in the worker process; `hermes tools` runs in another one. A worker publishes its states
// to <dir>/http-circuits-<pid>.json on every change, and readers take the files of processes still running on
// this host (a worker on another host is not seen). The open → half-open step needs no write: readers compute it
// from openUntil.
import fs from 'node:fs';
import path from 'node:path';
import { workerCircuits, type Circuits, type CircuitState } from './circuit';

const PREFIX = 'http-circuits-';

export interface PublishedCircuits {
  pid: number;
  updatedAt: string;
  states: CircuitState[];
}

/** Keeps this process's file up to date from now on; the returned function stops and removes it. */
export function publishCircuitStates(dir: string, circuits: Circuits = workerCircuits): () => void {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${PREFIX}${process.pid}.json`);
  const write = () => {
    const body: PublishedCircuits = { pid: process.pid, updatedAt: new Date().toISOString(), states: circuits.states() };
    // Written whole then renamed, so a reader never sees half a file.
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(body));
    fs.renameSync(`${file}.tmp`, file);
  };
  write();
  const stop = circuits.onChange(write);
  return () => {
    stop();
    fs.rmSync(file, { force: true });
  };
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The states published by worker processes running on this host (files of exited ones are skipped). */
export function readPublishedCircuitStates(dir: string, now = Date.now()): PublishedCircuits[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.startsWith(PREFIX) && n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: PublishedCircuits[] = [];
  for (const name of names) {
    const pid = Number(name.slice(PREFIX.length, -'.json'.length));
    if (!Number.isInteger(pid) || !running(pid)) continue;
    try {
      const body = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as PublishedCircuits;
      const states = body.states.map((s) =>
        s.state === 'open' && s.openUntil && Date.parse(s.openUntil) <= now ? { ...s, state: 'half-open' as const, openUntil: undefined } : s,
      );
      out.push({ ...body, states });
    } catch {
      // removed or replaced while we read it: that worker is skipped this time
    }
  }
  return out;
}
