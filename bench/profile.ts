// CPU profile of the throughput workload, for finding where the worker's time goes:
//   node --cpu-prof --cpu-prof-dir=.hermes/bench-prof --import tsx bench/profile.ts [ours|floor] [conversations] [floor-bundle]
//   npx tsx bench/profile-summary.ts .hermes/bench-prof
// Runs <conversations> (default 50) concurrent 10-iteration conversations with a 50 ms model (or the floor
// workflow of the same shape) on one worker against a dev server configured as the product starts it
// (DEV_SERVER_DYNAMIC_CONFIG). `floor-bundle` runs the floor from bench/floor-entry.ts (a bundle without the
// agent loop and zod) to see what the bundle itself costs. Node writes one .cpuprofile per thread (main
// thread: activities, mock model, client; one workflow thread); the measured window is saved next to them
// so the summary leaves out start-up and bundling.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { bundleOptions } from '../src/startup/bundle';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MockModel } from '../test/helpers/mock-model';
import { ContextCache } from '../src/activities/context';
import { Hermes } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { installRuntimeLogger } from '../src/observe/logger';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../src/shared/defaults';
import { ALL_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { createHermesWorker } from '../src/worker';
import { createBenchActivities } from './activities';
import { makeWorkspace, quietLogger, route } from './harness';
import type { floorThroughputWorkflow } from './workflows';

installRuntimeLogger('ERROR');
const mode = process.argv[2] === 'floor' ? 'floor' : 'ours';
const C = Number(process.argv[3] ?? 50);
const floorBundle = mode === 'floor' && process.argv[4] === 'floor-bundle';
const profDir = process.execArgv.find((a) => a.startsWith('--cpu-prof-dir='))?.split('=')[1] ?? process.cwd();

async function main() {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: await temporalExecutable('cli', { install: true }),
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      extraArgs: ['--log-level', 'error', ...DEV_SERVER_DYNAMIC_CONFIG],
    },
  });
  const mock = await MockModel.start();
  const workspace = makeWorkspace('hermes-prof-');
  try {
    for (let i = 0; i < 20 * C; i++) mock.push(route);
    const entry = floorBundle ? 'floor-entry.ts' : 'workflows-entry.ts';
    // The floor bundle is bundled bare (no preloaded zod): it shows what the SDK alone costs.
    const bundle = await bundleWorkflowCode(
      floorBundle ? { workflowsPath: path.join(__dirname, entry), logger: quietLogger } : bundleOptions(path.join(__dirname, entry)),
    );
    const profile = defineProfile('default', { baseURL: mock.baseURL, model: 'mock-model' });
    const contextCache = new ContextCache();
    const worker =
      mode === 'floor'
        ? await Worker.create({
            connection: env.nativeConnection,
            taskQueue: 'prof',
            workflowBundle: bundle,
            activities: createBenchActivities(profile),
          })
        : await createHermesWorker({
            connection: env.nativeConnection,
            taskQueue: 'prof',
            workspace,
            workflowBundle: bundle,
            profiles: { defaultName: 'default', profiles: { default: profile } },
            contextCache,
          });
    const hermes = await Hermes.connect({ client: env.client, taskQueue: 'prof' });
    await worker.runUntil(async () => {
      const us = () => Number(process.hrtime.bigint() / 1000n);
      const t0 = performance.now();
      const w0 = us();
      const cpu0 = process.cpuUsage();
      await Promise.all(
        Array.from({ length: C }, async (_, i) =>
          mode === 'floor'
            ? env.client.workflow.execute<typeof floorThroughputWorkflow>('floorThroughputWorkflow', {
                workflowId: `prof-floor-${Date.now()}-${i}`,
                taskQueue: 'prof',
                args: [{ iterations: 10, delayMs: 50 }],
              })
            : (await hermes.start({ prompt: `bench|tiny|10|50|${i}`, maxIterations: 100 })).result(),
        ),
      );
      const cpu = process.cpuUsage(cpu0);
      mkdirSync(profDir, { recursive: true });
      writeFileSync(path.join(profDir, 'window.json'), JSON.stringify({ mode, conversations: C, startUs: w0, endUs: us() }));
      console.log(
        `${mode}${floorBundle ? ' (floor-only bundle)' : ''}: ${C} × 10 iterations in ${(performance.now() - t0).toFixed(0)} ms; ` +
          `bench process CPU ${((cpu.user + cpu.system) / 1000 / (C * 10)).toFixed(2)} ms per iteration` +
          (mode === 'ours'
            ? `; context cache: ${contextCache.stats.rebuilt} rebuilt, ${contextCache.stats.whole} whole, ${contextCache.stats.queries} queried`
            : ''),
      );
    });
  } finally {
    await mock.close();
    await env.teardown();
    rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
