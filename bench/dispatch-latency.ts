// How long the dev server takes to hand a new task to a worker that is already waiting for it, measured
// without any SDK worker on the receiving side: a raw gRPC long poll (PollActivityTaskQueue) answers each
// activity at once, and the history timestamps give scheduled → started. Default config vs.
// history.transferProcessorMaxPollRPS=<n>.   npx tsx bench/dispatch-latency.ts [n …]   (default: 200, the product's
// DEV_SERVER_DYNAMIC_CONFIG)
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import path from 'node:path';
import { installRuntimeLogger } from '../src/observe/logger';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { noop, quietLogger as quiet } from './harness';
import { activityTimings, median } from './history';
import type { dispatchProbeWorkflow } from './workflows';

installRuntimeLogger('ERROR');

async function measure(label: string, extraArgs: string[]) {
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: await temporalExecutable('cli', { install: true }), extraArgs: ['--log-level', 'error', ...extraArgs] },
  });
  let stop = false;
  const pollers: Promise<void>[] = [];
  try {
    const bundle = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'workflows.ts'), logger: quiet });
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: 'probe-wf', workflowBundle: bundle });
    const svc = env.client.workflowService;
    for (let i = 0; i < 2; i++) {
      pollers.push(
        (async () => {
          while (!stop) {
            const t = await env.connection.withDeadline(Date.now() + 5_000, () =>
              svc.pollActivityTaskQueue({ namespace: 'default', taskQueue: { name: 'probe-acts' }, identity: 'raw-poller' }),
            );
            if (t.taskToken?.length) await svc.respondActivityTaskCompleted({ namespace: 'default', taskToken: t.taskToken, identity: 'raw-poller' });
          }
        })().catch(noop),
      );
    }
    await worker.runUntil(async () => {
      for (let r = 0; r < 3; r++) {
        const id = `probe-${Date.now()}-${r}`;
        await env.client.workflow.execute<typeof dispatchProbeWorkflow>('dispatchProbeWorkflow', {
          workflowId: id,
          taskQueue: 'probe-wf',
          args: ['probe-acts', 50],
        });
        const t = activityTimings(await env.client.workflow.getHandle(id).fetchHistory());
        console.log(
          `${label}: activity scheduled → picked up by a waiting raw poller: median ${median(t.map((x) => x.startedAt - x.scheduledAt)).toFixed(1)} ms; ` +
            `activity completed → next scheduled (one workflow task): ${median(t.map((x) => x.gapAfter ?? NaN)).toFixed(1)} ms`,
        );
      }
    });
  } finally {
    stop = true;
    await Promise.all(pollers);
    await env.teardown();
  }
}

async function main() {
  await measure('stock dev server (no dynamic config)', []);
  const values = process.argv.slice(2).length ? process.argv.slice(2) : ['200'];
  for (const n of values) {
    await measure(`transferProcessorMaxPollRPS=${n}`, ['--dynamic-config-value', `history.transferProcessorMaxPollRPS=${n}`]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
