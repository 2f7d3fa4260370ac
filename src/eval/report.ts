// The eval's report: per task, the success rate over its repeats and the means (± standard deviation) of steps, tool
// calls, wall time, tokens and cost, its injected faults and why runs failed; for the suite, the success rate of each
// repeat round with its mean, spread and range. A table for the terminal; the same as JSON.
import type { FaultCount } from './fault-count';
import type { RunRecord } from './run';

export interface Stat {
  mean: number;
  sd: number;
  min: number;
  max: number;
}

export interface TaskReport {
  task: string;
  runs: number;
  passes: number;
  /** passes / runs */
  rate: number;
  /** Standard deviation of pass (1) / fail (0) over the repeats. */
  rateSd: number;
  modelCalls: Stat;
  toolCalls: Stat;
  wallSec: Stat;
  tokens: Stat;
  costUsd: Stat;
  faults: number;
  /** Why runs failed, with how many: `check file out.txt`, `failed (ModelUnavailable)`, `timeout`… */
  failures: Record<string, number>;
}

export interface EvalReport {
  suite: string;
  model?: string;
  repeat: number;
  concurrency: number;
  /** The rate asked for (--faults); counts are what the histories show, whoever injected them. */
  faultRate?: number;
  summary: {
    runs: number;
    passes: number;
    rate: number;
    /** Success rate of each repeat round (round k: the k-th run of every task). */
    roundRates: number[];
    roundRate: Stat;
    wallSec: number;
    tokens: number;
    costUsd: number;
    faults: FaultCount;
    /** Runs by how they ended: completed, failed, budget_exhausted, timeout… */
    statuses: Record<string, number>;
  };
  tasks: TaskReport[];
  runs: RunRecord[];
}

export function stat(xs: number[]): Stat {
  if (!xs.length) return { mean: 0, sd: 0, min: 0, max: 0 };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  // Sample standard deviation (n - 1): the repeats are a sample of what the agent does.
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, sd, min: Math.min(...xs), max: Math.max(...xs) };
}

/** The short form of why a run failed, grouped in the report: the failed check's name, or the status. */
export function failureKey(r: RunRecord): string | undefined {
  if (r.pass) return undefined;
  if (r.status === 'completed') return `check ${r.checks.find((c) => !c.ok)?.check ?? '?'}`;
  return r.reason?.startsWith('workspace:') ? 'workspace setup' : r.reason?.startsWith('start:') ? 'start' : (r.reason ?? r.status);
}

export function buildReport(
  runs: RunRecord[],
  meta: { suite: string; model?: string; repeat: number; concurrency: number; faultRate?: number },
): EvalReport {
  const byTask = new Map<string, RunRecord[]>();
  for (const r of runs) byTask.set(r.task, [...(byTask.get(r.task) ?? []), r]);
  const tasks = [...byTask].map(([task, rs]): TaskReport => {
    const passes = rs.filter((r) => r.pass).length;
    const failures: Record<string, number> = {};
    for (const r of rs) {
      const k = failureKey(r);
      if (k) failures[k] = (failures[k] ?? 0) + 1;
    }
    return {
      task,
      runs: rs.length,
      passes,
      rate: passes / rs.length,
      rateSd: stat(rs.map((r) => (r.pass ? 1 : 0))).sd,
      modelCalls: stat(rs.map((r) => r.modelCalls)),
      toolCalls: stat(rs.map((r) => r.toolCalls)),
      wallSec: stat(rs.map((r) => r.wallMs / 1000)),
      tokens: stat(rs.map((r) => r.usage.totalTokens)),
      costUsd: stat(rs.map((r) => r.usage.costUsd)),
      faults: rs.reduce((a, r) => a + r.faults.total, 0),
      failures,
    };
  });
  const rounds = Math.max(0, ...runs.map((r) => r.repeat));
  const roundRates = Array.from({ length: rounds }, (_, i) => {
    const rs = runs.filter((r) => r.repeat === i + 1);
    return rs.length ? rs.filter((r) => r.pass).length / rs.length : 0;
  });
  const faults: FaultCount = { total: 0, byType: {} };
  const statuses: Record<string, number> = {};
  for (const r of runs) {
    faults.total += r.faults.total;
    for (const [k, v] of Object.entries(r.faults.byType)) faults.byType[k] = (faults.byType[k] ?? 0) + v;
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  }
  const passes = runs.filter((r) => r.pass).length;
  return {
    ...meta,
    summary: {
      runs: runs.length,
      passes,
      rate: runs.length ? passes / runs.length : 0,
      roundRates,
      roundRate: stat(roundRates),
      wallSec: runs.reduce((a, r) => a + r.wallMs, 0) / 1000,
      tokens: runs.reduce((a, r) => a + r.usage.totalTokens, 0),
      costUsd: runs.reduce((a, r) => a + r.usage.costUsd, 0),
      faults,
      statuses,
    },
    tasks,
    runs,
  };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const num = (x: number, digits = 1) => (Number.isInteger(x) ? String(x) : x.toFixed(digits));
const withSd = (s: Stat, digits = 1) => (s.sd ? `${num(s.mean, digits)} ±${num(s.sd, digits)}` : num(s.mean, digits));

/** The report as a table for the terminal, then the totals. */
export function formatReport(r: EvalReport): string {
  const head = ['task', 'pass', 'rate', 'steps', 'tools', 'time s', 'tokens', 'cost $', 'faults', 'failures'];
  const rows = r.tasks.map((t) => [
    t.task,
    `${t.passes}/${t.runs}`,
    t.runs > 1 ? `${pct(t.rate)} ±${pct(t.rateSd)}` : pct(t.rate),
    withSd(t.modelCalls),
    withSd(t.toolCalls),
    withSd(t.wallSec),
    withSd(t.tokens, 0),
    t.costUsd.mean ? t.costUsd.mean.toFixed(4) : '-',
    String(t.faults),
    Object.entries(t.failures)
      .map(([k, n]) => (n > 1 ? `${k} ×${n}` : k))
      .join('; ') || '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  // The last column is not padded: failure reasons can be long.
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const s = r.summary;
  const rounds =
    s.roundRates.length > 1
      ? ` · per repeat ${s.roundRates.map(pct).join(', ')} (mean ${pct(s.roundRate.mean)} ±${pct(s.roundRate.sd)}, range ${pct(s.roundRate.min)}–${pct(s.roundRate.max)})`
      : '';
  const faultTypes = Object.entries(s.faults.byType)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const statuses = Object.entries(s.statuses)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    line(head),
    ...rows.map(line),
    '',
    `${r.suite}: ${s.passes}/${s.runs} passed (${pct(s.rate)})${rounds}`,
    `runs: ${statuses} · wall ${s.wallSec.toFixed(1)} s summed · tokens ${s.tokens}${s.costUsd ? ` · cost $${s.costUsd.toFixed(4)}` : ''}`,
    `injected faults: ${s.faults.total}${faultTypes ? ` (${faultTypes})` : ''}${r.faultRate !== undefined ? ` at --faults ${r.faultRate}` : ''}`,
  ].join('\n');
}
