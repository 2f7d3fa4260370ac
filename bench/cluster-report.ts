// The cluster block of bench/RESULTS.md: one row per worker count, then what the figures say — which process group
// took the CPU, whether the machine was the ceiling, and whether the workers' CPU per step grows with their number.
import os from 'node:os';
import type { ScaleOptions } from './cluster';

export interface ScaleRow {
  workers: number;
  wallMs: number;
  convPerSec: number;
  p50: number;
  p95: number;
  /** How many step latencies the percentiles are of. */
  latencies: number;
  /** CPU ms over the measured stretch: server, PostgreSQL, all worker processes, this process, everything else. */
  cpuMs: { server: number; postgres: number; workers: number; bench: number; other: number };
  /** Busy share of all the machine's CPUs over the stretch. */
  machineBusyShare: number;
  steps: number;
  load: string;
}

const GROUPS = {
  server: 'temporal-server',
  postgres: 'PostgreSQL',
  workers: 'hermes workers',
  bench: 'client + scripted model',
  other: 'other processes',
};
const s1 = (ms: number) => (ms / 1000).toFixed(1);
const perStep = (ms: number, r: ScaleRow) => (ms / r.steps).toFixed(2);

export function clusterReport(r: { o: ScaleOptions; rows: ScaleRow[]; commit: string; tookMs: number; date: string }): string {
  const { o, rows } = r;
  const args =
    `--cluster-conversations ${o.conversations} --cluster-steps ${o.steps} --cluster-workers ${o.workers.join(',')}` +
    (o.checkpoints ? ' --cluster-checkpoints' : '');
  const lines = [
    `### Scale-out on the production server, ${r.date} UTC on ${r.commit} (\`npm run bench -- --cluster ${args}\`, ${(r.tookMs / 60_000).toFixed(1)} min)`,
    '',
    `${os.availableParallelism()} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; temporal-server 1.32.2 on PostgreSQL 15 (SQL visibility), ` +
      `deploy/cluster/start.sh. ${o.conversations} conversations × ${o.steps} write_file steps, started at once; the scripted model answers ` +
      `each call after 50 ms over HTTP. Step latency: from one model request of a conversation to its next (the 50 ms reply, ` +
      `the workflow task, the tool activity, the next workflow task). CPU from /proc (utime+stime+cutime+cstime, PostgreSQL with its backends). ` +
      (o.checkpoints
        ? 'Workspace checkpoints on (the default): each write_file also runs git before and after.'
        : 'Workspace checkpoints off (HERMES_CHECKPOINTS=off), so a step is orchestration and one file write, not git.'),
    '',
    '| workers | conv/s | step p50 | step p95 | server CPU s | PostgreSQL CPU s | workers CPU s | client+model CPU s | other CPU s | machine busy | ms/step: workers | server | PostgreSQL | load |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (x) =>
        `| ${x.workers} | ${x.convPerSec.toFixed(2)} | ${x.p50.toFixed(0)} ms | ${x.p95.toFixed(0)} ms | ${s1(x.cpuMs.server)} | ${s1(x.cpuMs.postgres)} | ` +
        `${s1(x.cpuMs.workers)} | ${s1(x.cpuMs.bench)} | ${s1(x.cpuMs.other)} | ${(100 * x.machineBusyShare).toFixed(0)} % | ` +
        `${perStep(x.cpuMs.workers, x)} | ${perStep(x.cpuMs.server, x)} | ${perStep(x.cpuMs.postgres, x)} | ${x.load} |`,
    ),
    '',
    ...verdict(o, rows),
  ];
  return lines.join('\n');
}

function verdict(o: ScaleOptions, rows: ScaleRow[]): string[] {
  if (!rows.length) return [];
  const out: string[] = [];
  for (const x of rows) {
    const total = Object.values(x.cpuMs).reduce((a, b) => a + b, 0);
    const shares = (Object.keys(GROUPS) as Array<keyof typeof GROUPS>).map((k) => [k, x.cpuMs[k] / total] as const).sort((a, b) => b[1] - a[1]);
    // Ours: everything but the other processes. With the machine to itself the CPUs would cap the run at
    // cores / (our CPU per step); the group with the largest share per step is where that ceiling sits.
    const ours = total - x.cpuMs.other;
    const cap = (os.availableParallelism() * 1000 * x.steps) / ours;
    const top = shares.find(([k]) => k !== 'other')!;
    out.push(
      `- ${x.workers} worker(s): the CPU went to ${shares.map(([k, s]) => `${GROUPS[k]} ${(100 * s).toFixed(0)} %`).join(', ')}; ` +
        `the machine was ${(100 * x.machineBusyShare).toFixed(0)} % busy` +
        (x.machineBusyShare >= 0.9 ? ' — the ceiling is the machine' : '') +
        `. Ours took ${(ours / x.steps).toFixed(1)} ms CPU per step, so ${os.availableParallelism()} cores to ourselves would cap at ` +
        `${cap.toFixed(0)} steps/s (${(cap / o.steps).toFixed(2)} conversations/s); the largest part is ${GROUPS[top[0]]} ` +
        `(${perStep(x.cpuMs[top[0]], x)} ms/step).`,
    );
  }
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const ratio = last.cpuMs.workers / last.steps / (first.cpuMs.workers / first.steps);
  out.push(
    `- Worker CPU per step: ${rows.map((x) => `${perStep(x.cpuMs.workers, x)} ms at ${x.workers}`).join(', ')} — ` +
      `${last.workers} workers cost ${ratio.toFixed(2)}× per step what ${first.workers} did` +
      (ratio <= 1.15 ? ': the per-worker cost does not grow with the number of workers.' : ': it grows.'),
  );
  out.push(
    `- Throughput ${rows.map((x) => `${x.convPerSec.toFixed(2)}/s at ${x.workers}`).join(', ')}: ` +
      `${(last.convPerSec / first.convPerSec).toFixed(2)}× from ${first.workers} to ${last.workers} worker(s).`,
  );
  return out;
}
