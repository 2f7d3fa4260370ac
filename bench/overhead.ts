// Scenario 1: orchestration overhead per loop iteration with an instant model, next to the engine floor
// (sequential no-op activities), plus timings from inside the product's activities.
import { Worker } from '@temporalio/worker';
import { Hermes } from '../src/client';
import { activityTimings, diffs, median, scheduledTimes, workflowTaskTimings, type ActivityTiming, type WorkflowTaskTiming } from './history';
import { cacheWatch, fetchHistory, runFloor, runOurs, type Harness } from './harness';
import { instrumentedActivities } from './instrumented';
import { meter } from './meter';

const INSTRUMENTED_QUEUE = 'bench-instrumented';

export interface Breakdown {
  schedToStart: number;
  exec: number;
  gapAfter: number;
}

export function breakdown(timings: ActivityTiming[], type: string): Breakdown {
  const ts = timings.filter((t) => t.type === type);
  return {
    schedToStart: median(ts.map((t) => t.startedAt - t.scheduledAt)),
    exec: median(ts.map((t) => t.completedAt - t.startedAt)),
    gapAfter: median(ts.filter((t) => t.gapAfter !== undefined).map((t) => t.gapAfter!)),
  };
}

function wftBreakdown(ts: WorkflowTaskTiming[]) {
  return { schedToStart: median(ts.map((t) => t.startedAt - t.scheduledAt)), exec: median(ts.map((t) => t.completedAt - t.startedAt)) };
}

export async function scenarioOverhead(h: Harness, runs: number, N: number) {
  // Warm-up: first workflow tasks, connections, JIT.
  await runOurs(h, 'tiny', 10);
  await runFloor(h, 21);
  const m = meter();
  const cache = cacheWatch(h.contextCache);
  const ours: Array<{ wall: number; hist: number }> = [];
  const floor: Array<{ wall: number; hist: number; histPerActivity: number }> = [];
  const oursTimings: ActivityTiming[] = [];
  const floorTimings: ActivityTiming[] = [];
  const oursWft: WorkflowTaskTiming[] = [];
  const floorWft: WorkflowTaskTiming[] = [];
  for (let r = 0; r < runs; r++) {
    const o = await runOurs(h, 'tiny', N);
    const oh = await fetchHistory(h, o.id);
    // One iteration = model call k scheduled → model call k+1 scheduled (model + tool + 2 workflow tasks).
    ours.push({ wall: o.wallMs / N, hist: median(diffs(scheduledTimes(oh, 'callModel'))) });
    oursTimings.push(...activityTimings(oh));
    oursWft.push(...workflowTaskTimings(oh).slice(1));

    // 2N+1 activities, like ours: N × (model + tool) + the final answer.
    const f = await runFloor(h, 2 * N + 1);
    const fh = await fetchHistory(h, f.id);
    const ft = scheduledTimes(fh);
    floor.push({ wall: f.wallMs / (N + 0.5), hist: median(diffs(ft, 2)), histPerActivity: median(diffs(ft)) });
    floorTimings.push(...activityTimings(fh));
    floorWft.push(...workflowTaskTimings(fh).slice(1));
  }
  const contextCache = cache(runs);
  const cpu = m.stop();
  const oursIter = median(ours.map((x) => x.hist));
  const floorPair = median(floor.map((x) => x.hist));
  const oursWall = median(ours.map((x) => x.wall));
  const floorWall = median(floor.map((x) => x.wall));
  return {
    N,
    runs,
    oursIter,
    floorPair,
    floorOne: median(floor.map((x) => x.histPerActivity)),
    oursWall,
    floorWall,
    ratio: oursIter / floorPair,
    ratioWall: oursWall / floorWall,
    perRun: { ours, floor },
    model: breakdown(oursTimings, 'callModel'),
    tool: breakdown(oursTimings, 'runTool'),
    noop: breakdown(floorTimings, 'benchNoop'),
    oursWft: wftBreakdown(oursWft),
    floorWft: wftBreakdown(floorWft),
    contextCache,
    cpu,
  };
}

export type Overhead = Awaited<ReturnType<typeof scenarioOverhead>>;

/**
 * The same loop on a worker whose activities are timed from the inside (getting the context, the whole
 * handlers), configured like createHermesWorker. `conversations` runs of N iterations after a warm-up.
 */
export async function scenarioInstrumented(h: Harness, conversations: number, N: number) {
  const inst = instrumentedActivities({ profiles: h.profiles, workspace: h.workspace });
  const worker = await Worker.create({
    connection: h.env.nativeConnection,
    namespace: 'default',
    taskQueue: INSTRUMENTED_QUEUE,
    workflowBundle: h.bundle,
    activities: inst.activities,
    maxConcurrentActivityTaskExecutions: 100,
    maxHeartbeatThrottleInterval: 250,
    defaultHeartbeatThrottleInterval: 250,
    shutdownGraceTime: '5 seconds',
  });
  const hermes = await Hermes.connect({ client: h.client, taskQueue: INSTRUMENTED_QUEUE });
  return worker.runUntil(async () => {
    await runOurs(h, 'tiny', 5, 0, hermes);
    inst.reset();
    const timings: ActivityTiming[] = [];
    for (let i = 0; i < conversations; i++) {
      const o = await runOurs(h, 'tiny', N, 0, hermes);
      timings.push(...activityTimings(await fetchHistory(h, o.id)));
    }
    const calls = inst.cache.calls;
    return {
      conversations,
      N,
      rebuiltGet: median(calls.filter((c) => !c.queried).map((c) => c.ms)),
      queryGet: median(calls.filter((c) => c.queried).map((c) => c.ms)),
      queries: calls.filter((c) => c.queried).length,
      calls: calls.length,
      callModel: median(inst.callModelMs),
      modelRest: median(inst.callModelMs.map((x, i) => x - (calls[i]?.ms ?? 0))),
      runTool: median(inst.runToolMs),
      serverModelExec: breakdown(timings, 'callModel').exec,
      serverToolExec: breakdown(timings, 'runTool').exec,
    };
  });
}

export type Instrumented = Awaited<ReturnType<typeof scenarioInstrumented>>;
