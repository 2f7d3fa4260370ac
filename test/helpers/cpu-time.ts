// CPU time of a synchronous function, best of `runs` (test files run in their own processes, `pool: 'forks'`):
// cost bounds measured this way hold on a shared machine, where wall-clock time depends on who else is running.
export function cpuMs(fn: () => unknown, runs = 2): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t0);
    best = Math.min(best, (d.user + d.system) / 1000);
  }
  return best;
}
