// CPU and memory of the bench process, the dev server (its child processes) and the rest of the machine,
// from process.cpuUsage()/memoryUsage() and /proc.
import { readdirSync, readFileSync } from 'node:fs';

/** All descendants of a process (the dev server is a child of the bench process). */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [pid, pp] of parent) {
      if (pp === p) {
        out.push(pid);
        walk(pid);
      }
    }
  };
  walk(root);
  return out;
}

export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** CPU time (ms) of a process from /proc (utime + stime). */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU time (ms) of a process and everything under it: utime + stime + cutime + cstime of the process and of each
 * live descendant. A child that ended was counted by its parent's cutime/cstime once reaped, so a delta of two
 * readings covers the PostgreSQL backends and tool processes that came and went in between.
 */
export function treeCpuMs(root: number): number {
  return [root, ...descendants(root)].reduce((a, pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return a + (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS;
    } catch {
      return a;
    }
  }, 0);
}

/** Busy and total CPU time (ms, all CPUs) of the machine. */
export function machineCpuMs(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: (total - f[3]! - f[4]!) * TICK_MS, total: total * TICK_MS };
}

export interface Metered {
  /** Peak RSS of the bench process. */
  peak: number;
  /** Peak RSS of the dev server. */
  serverPeak: number;
  wall: number;
  /** CPU ms of the bench process, the dev server, everything else, and idle CPU ms (all cores). */
  benchCpu: number;
  serverCpu: number;
  otherCpu: number;
  idleCpu: number;
}

/** Starts sampling peak RSS (every 100 ms) and CPU; `stop()` returns the totals since the start. */
export function meter(serverPids = descendants(process.pid)) {
  let peak = 0;
  let serverPeak = 0;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().rss);
    serverPeak = Math.max(
      serverPeak,
      serverPids.reduce((a, p) => a + rssOf(p), 0),
    );
  };
  const cpu0 = process.cpuUsage();
  const server0 = serverPids.reduce((a, p) => a + cpuMsOf(p), 0);
  const machine0 = machineCpuMs();
  const t0 = performance.now();
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop(): Metered {
      clearInterval(timer);
      sample();
      const wall = performance.now() - t0;
      const u = process.cpuUsage(cpu0);
      const benchCpu = (u.user + u.system) / 1000;
      const serverCpu = serverPids.reduce((a, p) => a + cpuMsOf(p), 0) - server0;
      const m = machineCpuMs();
      const busy = m.busy - machine0.busy;
      return {
        peak,
        serverPeak,
        wall,
        benchCpu,
        serverCpu,
        otherCpu: Math.max(0, busy - benchCpu - serverCpu),
        idleCpu: m.total - machine0.total - busy,
      };
    },
  };
}

export const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
