// Scenario 3: many concurrent conversations with a slow model on one worker, next to the engine floor of the
// same shape (a sleep activity as long as the model + a no-op activity per iteration).
import { median } from './history';
import { BENCH_QUEUE, cacheWatch, runOurs, uid, type Harness } from './harness';
import { descendants, meter } from './meter';
import { scenarioDirect } from './direct';
import type { ShapeInput } from './workflows';

export async function scenarioThroughput(h: Harness, C: number, N: number, delayMs: number, toolExecMs: number) {
  const serverPids = descendants(process.pid);
  // Warm-up with a few concurrent conversations.
  await Promise.all(Array.from({ length: 10 }, () => runOurs(h, 'tiny', 3, delayMs)));
  h.mock.requests.length = 0;
  const rssBefore = process.memoryUsage().rss;
  const cache = cacheWatch(h.contextCache);
  const m = meter(serverPids);
  const t0 = performance.now();
  const per = await Promise.all(Array.from({ length: C }, () => runOurs(h, 'tiny', N, delayMs)));
  const wallMs = performance.now() - t0;
  const ours = m.stop();
  const contextCache = cache(C);
  const modelRequests = h.mock.requests.length;
  h.mock.requests.length = 0;

  const fm = meter(serverPids);
  const f0 = performance.now();
  await runShape(h, 'floorThroughputWorkflow', C, N, delayMs);
  const floorWallMs = performance.now() - f0;
  const floor = fm.stop();

  const l0 = performance.now();
  await runShape(h, 'localFloorThroughputWorkflow', C, N, delayMs);
  const localFloorWallMs = performance.now() - l0;
  h.mock.requests.length = 0;
  const dm = meter(serverPids);
  const directWallMs = await scenarioDirect(h, C, N, delayMs);
  const direct = dm.stop();
  h.mock.requests.length = 0;
  const ideal = N * (delayMs + toolExecMs) + delayMs; // + the final answer's model call
  return {
    C,
    N,
    delayMs,
    wallMs,
    ideal,
    toolExecMs,
    ratio: wallMs / ideal,
    floorWallMs,
    floorRatio: floorWallMs / ideal,
    localFloorWallMs,
    directWallMs,
    direct,
    convMedian: median(per.map((p) => p.wallMs)),
    convMax: Math.max(...per.map((p) => p.wallMs)),
    rssBefore,
    ours,
    floor,
    modelRequests,
    contextCache,
  };
}

export type Throughput = Awaited<ReturnType<typeof scenarioThroughput>>;

/** C reference workflows of the throughput shape at once. */
async function runShape(h: Harness, type: 'floorThroughputWorkflow' | 'localFloorThroughputWorkflow', C: number, N: number, delayMs: number) {
  const args: [ShapeInput] = [{ iterations: N, delayMs }];
  await Promise.all(Array.from({ length: C }, () => h.client.workflow.execute(type, { workflowId: uid(type), taskQueue: BENCH_QUEUE, args })));
}
