// Scenario 4: memory per cached conversation. N chat conversations are started and left idle (each waits for a
// message, cached on the worker), next to N idle workflows of a bundle with nothing but one waiting workflow
// on a worker configured the same way: the SDK's own cost per cached workflow. RSS of the bench process.
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import path from 'node:path';
import { quietLogger, uid, type Harness } from './harness';
import { stopIdle } from './idle-entry';

const IDLE_QUEUE = 'bench-idle';

async function settledRss(): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 1_500));
  return process.memoryUsage().rss;
}

export async function scenarioMemory(h: Harness, N: number) {
  // Ours: warm up (first workflows, JIT), then N idle chats.
  const warm = await Promise.all(Array.from({ length: 5 }, () => h.hermes.start({ id: uid('mem-warm'), mode: 'chat' })));
  for (const w of warm) await w.state();
  const before = await settledRss();
  const chats = await Promise.all(Array.from({ length: N }, () => h.hermes.start({ id: uid('mem-chat'), mode: 'chat' })));
  for (const c of chats) await c.state(); // each has had its first workflow task: it is in the worker's cache
  const ours = (await settledRss()) - before;
  await Promise.all([...warm, ...chats].map((c) => c.end()));
  await Promise.all([...warm, ...chats].map((c) => c.result()));

  const bundle = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'idle-entry.ts'), logger: quietLogger });
  const worker = await Worker.create({ connection: h.env.nativeConnection, taskQueue: IDLE_QUEUE, workflowBundle: bundle });
  const floor = await worker.runUntil(async () => {
    const start = () => h.client.workflow.start('idleWorkflow', { workflowId: uid('mem-idle'), taskQueue: IDLE_QUEUE });
    const warmIdle = await Promise.all(Array.from({ length: 5 }, start));
    for (const w of warmIdle) await w.describe();
    const b = await settledRss();
    const idle = await Promise.all(Array.from({ length: N }, start));
    // Started workflows are cached once their first task ran: wait until the last one's did.
    for (const w of idle) {
      for (let i = 0; i < 200 && (await w.fetchHistory()).events!.length < 4; i++) await new Promise((r) => setTimeout(r, 25));
    }
    const grown = (await settledRss()) - b;
    const all = [...warmIdle, ...idle];
    await Promise.all(all.map((w) => w.signal(stopIdle)));
    await Promise.all(all.map((w) => w.result()));
    return grown;
  });
  return { N, oursPerConversation: ours / N, floorPerWorkflow: floor / N };
}

export type Memory = Awaited<ReturnType<typeof scenarioMemory>>;
