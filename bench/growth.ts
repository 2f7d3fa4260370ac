// Scenario 2: history bytes per loop iteration, ours vs a naive loop that passes the whole transcript into
// every model activity. Tool output ≈ 2 KB per call (read_file pages of 41 lines).
import { bytesPerIteration, historyBytes, mean } from './history';
import { cacheWatch, fetchHistory, runNaive, runOurs, type CacheUse, type Harness } from './harness';

export interface Curve {
  n: number;
  totalBytes: number;
  events: number;
  firstDecile: number;
  lastDecile: number;
  growth: number;
  wallMs: number;
}

function curve(n: number, perIteration: number[], totalBytes: number, events: number, wallMs: number): Curve {
  const tools = perIteration.slice(0, n); // iterations with a tool call; the last entry is the answer
  const d = Math.max(1, Math.ceil(n / 10));
  const firstDecile = mean(tools.slice(0, d));
  const lastDecile = mean(tools.slice(n - d));
  return { n, totalBytes, events, firstDecile, lastDecile, growth: lastDecile / firstDecile, wallMs };
}

export async function scenarioGrowth(h: Harness, sizes: number[], log: (line: string) => void) {
  const ours: Curve[] = [];
  const naive: Curve[] = [];
  const cache = cacheWatch(h.contextCache);
  for (const n of sizes) {
    h.mock.requests.length = 0;
    const o = await runOurs(h, 'page', n);
    if (o.result.runs !== 1) throw new Error(`our loop continued-as-new (${o.result.runs} runs); history of the last run only`);
    const oh = await fetchHistory(h, o.id);
    ours.push(curve(n, bytesPerIteration(oh, 'callModel'), historyBytes(oh), oh.events?.length ?? 0, o.wallMs));
    h.mock.requests.length = 0;
    const v = await runNaive(h, n);
    const vh = await fetchHistory(h, v.id);
    naive.push(curve(n, bytesPerIteration(vh, 'naiveModel'), historyBytes(vh), vh.events?.length ?? 0, v.wallMs));
    log(`n=${n}: ours ${(ours.at(-1)!.totalBytes / 1024).toFixed(1)} KiB, naive ${(naive.at(-1)!.totalBytes / 1024).toFixed(1)} KiB`);
  }
  const contextCache: CacheUse = cache(sizes.length);
  return { ours, naive, contextCache };
}

export type Growth = Awaited<ReturnType<typeof scenarioGrowth>>;
