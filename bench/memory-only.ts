// Scenario 4 alone (tsx --expose-gc bench/memory-only.ts [N] [--heap]), on the product's dev server configuration:
// the whole bench takes ~15 minutes, too long to iterate on memory per idle conversation. --heap: V8 heap growth
// with the workflows in the worker's thread instead of RSS (memory-child.ts), for comparing two builds.
import { bundleWorkflowCode } from '@temporalio/worker';
import path from 'node:path';
import { bundleOptions } from '../src/startup/bundle';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { PRODUCT_SERVER, withServer } from './harness';
import { scenarioMemory } from './memory';
import { TARGETS, verdict } from './targets';

async function main() {
  const heap = process.argv.includes('--heap');
  if (heap) process.env.BENCH_MEMORY_HEAP = '1'; // read by the children (memory-child.ts)
  const N = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 300);
  const exe = await temporalExecutable('cli', { install: true });
  const bundle = await bundleWorkflowCode(bundleOptions(path.join(__dirname, 'workflows-entry.ts')));
  const m = await withServer(PRODUCT_SERVER, exe, bundle, (h) => scenarioMemory(h, N));
  const kib = (b: number) => (b / 1024).toFixed(1);
  console.log(
    `${N} idle chats${heap ? ', V8 heap' : ''}: ${kib(m.oursPerConversation)} KiB each; SDK alone (idle workflow): ${kib(m.floorPerWorkflow)} KiB each → ` +
      verdict(m.oursPerConversation / m.floorPerWorkflow, TARGETS.idleMemoryOverSdk),
  );
}

void main();
