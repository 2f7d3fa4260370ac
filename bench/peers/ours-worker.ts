// bench/peers: our worker in a process of its own, so its CPU time is measured like the peers' workers.
//   node --import tsx bench/peers/ours-worker.ts <temporal address> <task queue> <model base URL> <workspace>
// The product's worker as the bench's harness creates it (createHermesWorker, one pre-built bundle). Prints
// "ready" once polling; SIGTERM shuts it down.
import { bundleWorkflowCode, NativeConnection } from '@temporalio/worker';
import { bundleOptions } from '../../src/startup/bundle';
import { defineProfile } from '../../src/llm/profiles';
import { installRuntimeLogger } from '../../src/observe/logger';
import { createHermesWorker } from '../../src/worker';

installRuntimeLogger('ERROR');

async function main() {
  const [address, taskQueue, baseURL, workspace] = process.argv.slice(2) as [string, string, string, string];
  const connection = await NativeConnection.connect({ address });
  const worker = await createHermesWorker({
    connection,
    taskQueue,
    profiles: { defaultName: 'default', profiles: { default: defineProfile('default', { baseURL, model: 'mock-model' }) } },
    workspace,
    workflowBundle: await bundleWorkflowCode(bundleOptions()),
  });
  await worker.runUntil(
    new Promise<void>((resolve) => {
      console.log('ready');
      process.once('SIGTERM', () => resolve());
    }),
  );
  await connection.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
