// The peers block of bench/RESULTS.md: one table per N (medians over the reps), ratios peer / ours first.
import { execSync } from 'node:child_process';
import os from 'node:os';
import { median } from '../history';
import { LABELS, type Peer, type PeerKey } from './workers';

export interface Measured {
  peer: PeerKey;
  n: number;
  id: string;
  /** Tool steps completed. */
  steps: number;
  modelCalls: number;
  /** The step (model call) during which the server terminated the workflow (history size/count limit). */
  terminatedAt?: number;
  error?: string;
  status: string;
  runs: number;
  /** Server historySizeBytes, summed over every run of the chain (describe). */
  historyBytes: number;
  events: number;
  wallMs: number;
  /** Start request sent → first chat-completions request of the conversation at the mock. */
  firstCallMs: number;
  /** utime + stime of the peer's worker process during the conversation. */
  cpuMs: number;
}

interface Input {
  commit: string;
  command: string;
  tookMs: number;
  load0: string;
  load1: string;
  peers: Peer[];
  skipped: Array<{ key: PeerKey; skipped: string }>;
  results: Measured[];
}

export const gitCommit = () => git('rev-parse --short HEAD') + (git('status --porcelain') ? ' (+ uncommitted changes)' : '');

const git = (cmd: string) => {
  try {
    return execSync(`git ${cmd}`, { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return '?';
  }
};

/** "10 ×3", "1000 (3 runs)", "terminated at step 122 (50.1 MiB, 860 events)": how far each conversation got. */
function reached(ms: Measured[]): string {
  const one = (m: Measured) =>
    m.terminatedAt
      ? `terminated at step ${m.terminatedAt} (${(m.historyBytes / 1024 ** 2).toFixed(1)} MiB, ${m.events} events)`
      : m.error
        ? `failed: ${m.error.slice(0, 80)}`
        : `${m.steps}${m.runs > 1 ? ` (${m.runs} runs)` : ''}`;
  const all = ms.map(one);
  return all.every((e) => e === all[0]) && all.length > 1 ? `${all[0]} ×${all.length}` : all.join(', ');
}

/** Per-step figures divide by the steps the conversation reached (the terminating one included). */
function cell(ms: Measured[]) {
  const per = (f: (m: Measured) => number) => median(ms.map((m) => f(m) / Math.max(1, m.terminatedAt ?? m.steps)));
  return {
    bytes: per((m) => m.historyBytes),
    wall: per((m) => m.wallMs),
    first: median(ms.map((m) => m.firstCallMs)),
    cpu: per((m) => m.cpuMs),
    end: reached(ms),
  };
}

const x = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '–');

export function peersReport(r: Input): string {
  const when = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const keys = r.peers.map((p) => p.key);
  const L: string[] = [];
  L.push(
    `### Peers run of ${when} on ${r.commit} (\`${r.command}\`, ${(r.tookMs / 60_000).toFixed(1)} min; ` +
      `${os.availableParallelism()} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; load ${r.load0} → ${r.load1})`,
    '',
  );
  for (const p of r.peers) L.push(`- ${p.label}: ${p.versions}`);
  for (const s of r.skipped) L.push(`- ${LABELS[s.key]}: **skipped** — ${s.skipped}`);
  L.push(
    '',
    'One dev server configured as the product starts it, with the default history limits (50 MiB / 51,200 events); ' +
      'the scripted model of test/helpers/mock-model.ts over HTTP; every worker in a child process of its own ' +
      `(CPU = its utime + stime). Medians over the conversations of a cell (×k in "steps reached"). ` +
      'History = server `historySizeBytes` summed over the runs of the chain. Per-step figures divide by the steps ' +
      'reached (a terminated run by the step it died at). First call = start request → first model request.',
    '',
  );
  const sizes = [...new Set(r.results.map((m) => m.n))];
  if (keys.length > 1) {
    L.push('**Ratios peer / ours** (higher = the peer costs more)', '');
    L.push('| N | peer | history per step | wall per step | first model call | worker CPU per step | steps reached (peer / ours) |');
    L.push('|---|---|---|---|---|---|---|');
    for (const n of sizes) {
      const ours = cell(r.results.filter((m) => m.n === n && m.peer === 'ours'));
      for (const k of keys.filter((k) => k !== 'ours')) {
        const c = cell(r.results.filter((m) => m.n === n && m.peer === k));
        L.push(
          `| ${n} | ${LABELS[k]} | ${x(c.bytes, ours.bytes)} | ${x(c.wall, ours.wall)} | ${x(c.first, ours.first)} | ${x(c.cpu, ours.cpu)} | ${c.end} / ${ours.end} |`,
        );
      }
    }
    L.push('');
  }
  L.push('**Figures**', '');
  L.push('| N | agent | history per step | wall per step | first model call | worker CPU per step | steps reached |');
  L.push('|---|---|---|---|---|---|---|');
  for (const n of sizes) {
    for (const k of keys) {
      const c = cell(r.results.filter((m) => m.n === n && m.peer === k));
      L.push(
        `| ${n} | ${LABELS[k]} | ${(c.bytes / 1024).toFixed(2)} KiB | ${c.wall.toFixed(1)} ms | ${c.first.toFixed(0)} ms | ${c.cpu.toFixed(1)} ms | ${c.end} |`,
      );
    }
  }
  return L.join('\n');
}
