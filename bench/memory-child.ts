// One side of scenario 4 in a fresh process, so no other scenario's freed heap hides the growth:
//   tsx --expose-gc bench/memory-child.ts <ours|sdk> <temporal address> <N>
// Starts a worker (the product's, or a bare one for bench/idle-entry.ts), N idle workflows on it, and prints
// the growth of this process's RSS (or, see HEAP below, of its V8 heap) as JSON.
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { bundleOptions } from '../src/startup/bundle';
import { Hermes } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { installRuntimeLogger } from '../src/observe/logger';
import { createHermesWorker } from '../src/worker';
import { quietLogger } from './harness';
import { stopIdle } from './idle-entry';

installRuntimeLogger('ERROR');

// BENCH_MEMORY_HEAP=1 (memory-only.ts --heap): the workflows run in this thread (debugMode) on both sides and the
// number is the growth of V8's heap after a GC: exact from run to run (RSS moves ±30 KiB per workflow with the
// allocator), but without the native memory of the core and the runtime. BENCH_HEAP_SNAPSHOT=prefix also writes
// heap snapshots before and after the product's chats, to see what a conversation holds.
const HEAP = process.env.BENCH_MEMORY_HEAP === '1';
const DEBUG = HEAP ? { debugMode: true } : {};
const SNAPSHOT = process.env.BENCH_HEAP_SNAPSHOT;
async function settledMemory(): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, Number(process.env.SETTLE_MS ?? 1_500)));
  if (!HEAP) return process.memoryUsage().rss;
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

async function main() {
  const [kind, address, n] = process.argv.slice(2);
  const N = Number(n);
  const taskQueue = `mem-${kind}-${process.pid}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const id = (i: number) => `mem-${kind}-${process.pid}-${i}`;
  let grown: number;
  if (kind === 'ours') {
    const worker = await createHermesWorker({
      connection: nativeConnection,
      taskQueue,
      // Idle chats make no model call: the profile is never used.
      profiles: { defaultName: 'default', profiles: { default: defineProfile('default', { baseURL: 'http://127.0.0.1:9/v1', model: 'none' }) } },
      workflowBundle: await bundleWorkflowCode(bundleOptions()),
      tuning: DEBUG,
    });
    const hermes = await Hermes.connect({ client, taskQueue });
    grown = await worker.runUntil(async () => {
      const warm = await Promise.all(Array.from({ length: 5 }, (_, i) => hermes.start({ id: id(-1 - i), mode: 'chat' })));
      for (const w of warm) await w.state();
      const before = await settledMemory();
      if (SNAPSHOT) writeHeapSnapshot(`${SNAPSHOT}-before.heapsnapshot`);
      const chats = await Promise.all(Array.from({ length: N }, (_, i) => hermes.start({ id: id(i), mode: 'chat' })));
      for (const c of chats) await c.state(); // each has had its first workflow task: it is in the worker's cache
      const after = await settledMemory();
      if (SNAPSHOT) writeHeapSnapshot(`${SNAPSHOT}-after.heapsnapshot`);
      await Promise.all([...warm, ...chats].map((c) => c.end()));
      await Promise.all([...warm, ...chats].map((c) => c.result()));
      return after - before;
    });
  } else {
    const bundle = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'idle-entry.ts'), logger: quietLogger });
    const worker = await Worker.create({ connection: nativeConnection, taskQueue, workflowBundle: bundle, ...DEBUG });
    grown = await worker.runUntil(async () => {
      const start = (i: number) => client.workflow.start('idleWorkflow', { workflowId: id(i), taskQueue });
      const warm = await Promise.all(Array.from({ length: 5 }, (_, i) => start(-1 - i)));
      for (const w of warm) await w.query('__stack_trace').catch(() => undefined);
      const before = await settledMemory();
      const idle = await Promise.all(Array.from({ length: N }, (_, i) => start(i)));
      // A query needs the workflow on the worker: once answered, its first task has run and it is cached.
      for (const w of idle) await w.query('__stack_trace').catch(() => undefined);
      const after = await settledMemory();
      await Promise.all([...warm, ...idle].map((w) => w.signal(stopIdle)));
      await Promise.all([...warm, ...idle].map((w) => w.result()));
      return after - before;
    });
  }
  await connection.close();
  await nativeConnection.close();
  process.stdout.write(`${JSON.stringify({ perWorkflow: grown / N })}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
