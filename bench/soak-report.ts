// The soak block of bench/RESULTS.md: what was done to the system (kills, the restart), what the checks found, and
// worker RSS per lineage (first, last, max) with the never-killed lineage 0 over the whole run.
import os from 'node:os';
import type { ClusterModel } from './cluster-model';
import type { SoakOptions } from './soak';
import type { SoakCheck } from './soak-check';
import type { Fleet, RssSample } from './soak-fleet';
import type { Flown } from './soak-flight';

interface Input {
  o: SoakOptions;
  check: SoakCheck;
  fleet: Fleet;
  model: ClusterModel;
  flown: Flown[];
  restart: { atSec: number; downSec: number };
  wallSec: number;
  commit: string;
  date: string;
  load: string;
  benchRssMb: number;
}

const mb = (x: number | undefined) => (x === undefined ? '–' : `${x.toFixed(0)} MB`);
const some = (xs: string[]) => (xs.length ? ` (e.g. ${xs.slice(0, 3).join(', ')})` : '');

function rssRows(samples: RssSample[], lineages: number): string[] {
  return Array.from({ length: lineages }, (_, lineage) => {
    const s = samples.filter((x) => x.lineage === lineage);
    const pids = [...new Set(s.map((x) => x.pid))];
    const oldest = Math.max(0, ...s.map((x) => x.ageSec));
    return (
      `| ${lineage}${lineage === 0 ? ' (never killed)' : ''} | ${pids.length} | ${mb(s[0]?.mb)} | ${mb(s.at(-1)?.mb)} | ` +
      `${mb(Math.max(...s.map((x) => x.mb)))} | ${(oldest / 60).toFixed(1)} min |`
    );
  });
}

/** Lineage 0's RSS at its first sample after a minute, then every 5 minutes, and its last. */
function witness(samples: RssSample[]): string {
  const s = samples.filter((x) => x.lineage === 0);
  const marks: RssSample[] = [];
  for (let m = 1; ; m = m === 1 ? 5 : m + 5) {
    const at = s.find((x) => x.atSec >= m * 60);
    if (!at) break;
    marks.push(at);
  }
  if (s.length) marks.push(s.at(-1)!);
  return marks.map((x) => `${(x.atSec / 60).toFixed(0)} min ${x.mb.toFixed(0)} MB`).join(' → ');
}

/**
 * Whether lineage 0's memory stays flat, robust to the GC's sawtooth: its peak RSS in each third of the run after
 * the first minute (warm-up: caches, the bundle, connections), and the least-squares slope over those samples.
 */
function flatness(samples: RssSample[]): string {
  const s = samples.filter((x) => x.lineage === 0 && x.atSec >= 60);
  if (s.length < 6) return 'too few samples after the first minute to tell';
  const t0 = s[0]!.atSec;
  const span = s.at(-1)!.atSec - t0;
  const peak = (i: number) => Math.max(...s.filter((x) => Math.min(2, Math.floor((3 * (x.atSec - t0)) / span)) === i).map((x) => x.mb));
  const peaks = [0, 1, 2].map(peak);
  const mt = s.reduce((a, x) => a + x.atSec, 0) / s.length;
  const mm = s.reduce((a, x) => a + x.mb, 0) / s.length;
  const slope = s.reduce((a, x) => a + (x.atSec - mt) * (x.mb - mm), 0) / s.reduce((a, x) => a + (x.atSec - mt) ** 2, 0);
  const grows = peaks[2]! > 1.1 * peaks[0]!;
  return (
    `peak RSS per third of the run after the first minute ${peaks.map((x) => `${x.toFixed(0)} MB`).join(', ')}, ` +
    `slope ${(slope * 600).toFixed(1)} MB per 10 min — ${grows ? 'it grows (the last third peaks more than 10 % above the first)' : 'flat (the last third peaks within 10 % of the first)'}`
  );
}

/** Every conversation completed, each marker once, visibility settled, no tsvector error, no failed marker tool. */
export function soakPassed(c: SoakCheck, model: ClusterModel): boolean {
  return (
    c.completed === c.conversations &&
    c.markersOnce === c.markersExpected &&
    !c.markersExtra.length &&
    c.visibilityRunning === 0 &&
    c.visibilityCompleted === c.conversations &&
    c.tsvectorErrors === 0 &&
    model.toolErrors.length === 0
  );
}

export function soakReport(r: Input): string {
  const { o, check: c, fleet, model } = r;
  const checks = [...model.checks.values()];
  const steps = r.flown.reduce((a, f) => a + (f.result?.toolCalls ?? 0), 0);
  const ok = soakPassed(c, model);
  const args = `--soak-minutes ${o.minutes} --soak-workers ${o.workers} --soak-in-flight ${o.inFlight} --soak-steps ${o.steps} --soak-kill-every ${o.killEverySec}`;
  return [
    `### Soak, ${r.date} UTC on ${r.commit} (\`npm run bench -- --soak ${args}\`): ${ok ? 'everything accounted for' : 'FAILED CHECKS'}`,
    '',
    `${os.availableParallelism()} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; load ${r.load}. temporal-server 1.32.2 on PostgreSQL 15 ` +
      `(deploy/cluster/start.sh), ${o.workers} \`hermes worker\` processes, ${o.inFlight} conversations in flight, each ${o.steps} \`terminal\` ` +
      `steps appending to a marker file of its own (a run-once tool: Temporal never retries it), scripted model 50 ms a reply.`,
    '',
    '| | |',
    '|---|---|',
    `| ran | ${(r.wallSec / 60).toFixed(1)} min (new conversations for ${o.minutes} min, then the last ones finished) |`,
    `| conversations | ${c.conversations} started, **${c.completed} completed**${some(c.notCompleted)} |`,
    `| steps | ${steps} tool calls, ${((60 * c.completed) / r.wallSec).toFixed(1)} conversations/min |`,
    `| marker files | ${c.markersExpected} expected: **${c.markersOnce} exactly once**, ${c.markersMissing.length} missing${some(c.markersMissing)}, ` +
      `${c.markersTwice.length} written twice${some(c.markersTwice)}, ${c.markersExtra.length} unexpected |`,
    `| workers SIGKILLed | ${fleet.kills.length}, at ${fleet.kills.map((k) => `${(k.atSec / 60).toFixed(1)}`).join(', ')} min; ` +
      `replacements polling after ${fleet.kills.map((k) => (k.readyMs / 1000).toFixed(1)).join(', ')} s |`,
    `| server restart | stopped at ${(r.restart.atSec / 60).toFixed(1)} min, serving again ${r.restart.downSec.toFixed(1)} s later (PostgreSQL data kept); ` +
      `${r.flown.reduce((a, f) => a + f.startRetries, 0)} starts retried meanwhile |`,
    `| outcome unknown (worker died in the tool call) | ${model.unknown.size} told to the model; its check found the marker written ` +
      `${checks.filter((x) => x === 'had').length}×, wrote it ${checks.filter((x) => x === 'wrote').length}× |`,
    `| marker tool errors | ${model.toolErrors.length}${some(model.toolErrors)} |`,
    `| visibility | ${c.visibilityRunning} Running (checked ${c.visibilitySettleSec.toFixed(0)} s after the last result), ${c.visibilityCompleted} Completed |`,
    `| server log | ${c.tsvectorErrors} "syntax error in tsvector" |`,
    `| bench process (client + model) RSS at the end | ${r.benchRssMb.toFixed(0)} MB |`,
    '',
    'Worker RSS (VmRSS every 10 s), per lineage — a slot whose killed worker is replaced in place:',
    '',
    '| lineage | processes | first | last | max | longest-lived process |',
    '|---|---:|---:|---:|---:|---:|',
    ...rssRows(fleet.samples, o.workers),
    '',
    `Lineage 0 over the run: ${witness(fleet.samples)}; ${flatness(fleet.samples)}.`,
  ].join('\n');
}
