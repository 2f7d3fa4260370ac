// Finding a test's processes on the host by a marker in their command line (`sleep 300.123456`): a command in a
// pid namespace (bwrap, the isolation launcher) cannot tell its host pid, and `$$` there is 1 or 2.
import { readdirSync, readFileSync } from 'node:fs';

let counter = 0;

/** A unique `sleep` duration (seconds `base`, a fraction naming this process and call): greppable in /proc. */
export function sleepMarker(base = 300): string {
  return `${base}.${process.pid}${++counter}${Date.now() % 1000}`;
}

/** Live (not zombie) host processes whose command line contains `marker`, with their process groups; not this one. */
export function processesWith(marker: string): Array<{ pid: number; pgrp: number; cmdline: string }> {
  const found: Array<{ pid: number; pgrp: number; cmdline: string }> = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (!cmdline.includes(marker)) continue;
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (f[0] !== 'Z') found.push({ pid: Number(d), pgrp: Number(f[2]), cmdline: cmdline.split('\0').join(' ').trim() });
    } catch {
      // gone
    }
  }
  return found;
}

/** The live `sleep <marker>` processes themselves (not the shells whose command line mentions them). */
export function sleepsWith(marker: string): Array<{ pid: number; pgrp: number; cmdline: string }> {
  return processesWith(marker).filter((p) => p.cmdline === `sleep ${marker}`);
}
