// CPU time of a synchronous function, best of `runs` (test files run in their own processes, `pool: 'forks'`).
// Cost checks compare CPU times of two workloads measured here, one after the other — a ratio, not a bound in
// milliseconds: a slow or shared machine makes both sides slower alike, a regression (a regex that backtracks,
// a pass that went quadratic) makes one side many times the other.
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

/** `s` repeated to exactly `chars` characters (1 MB by default). */
export function repeatedTo(s: string, chars = 1_000_000): string {
  return s.repeat(Math.ceil(chars / s.length)).slice(0, chars);
}

/**
 * The reference workload for cost ratios: one linear regex pass (every run of digits replaced) over `text`.
 * What a redaction pass over the same text costs, in units of this, does not depend on the machine.
 */
export function onePassMs(text: string): number {
  return cpuMs(() => text.replace(/\d+/g, '#'), 5);
}
