// Scenario 3: many concurrent conversations with a slow model on one worker, next to the engine floor of the
// same shape (a sleep activity as long as the model + a no-op activity per iteration).
import { median } from './history';
import { BENCH_QUEUE, cacheWatch, runOurs, uid, type Harness } from './harness';
import { descendants, meter } from './meter';
import type { floorThroughputWorkflow } from './workflows';

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
  await Promise.all(
    Array.from({ length: C }, () =>
      h.client.workflow.execute<typeof floorThroughputWorkflow>('floorThroughputWorkflow', {
        workflowId: uid('floor-tp'),
        taskQueue: BENCH_QUEUE,
        args: [{ iterations: N, delayMs }],
      }),
    ),
  );
  const floorWallMs = performance.now() - f0;
  const floor = fm.stop();
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
