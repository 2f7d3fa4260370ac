// Scenario 4 alone (tsx --expose-gc bench/memory-only.ts [N]), on the product's dev server configuration: the
// whole bench takes ~15 minutes, too long to iterate on memory per idle conversation.
import { bundleWorkflowCode } from '@temporalio/worker';
import path from 'node:path';
import { bundleOptions } from '../src/startup/bundle';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { PRODUCT_SERVER, withServer } from './harness';
import { scenarioMemory } from './memory';
import { TARGETS, verdict } from './targets';

async function main() {
  const N = Number(process.argv[2] ?? 300);
  const exe = await temporalExecutable('cli', { install: true });
  const bundle = await bundleWorkflowCode(bundleOptions(path.join(__dirname, 'workflows-entry.ts')));
  const m = await withServer(PRODUCT_SERVER, exe, bundle, (h) => scenarioMemory(h, N));
  const kib = (b: number) => (b / 1024).toFixed(1);
  console.log(
    `${N} idle chats: ${kib(m.oursPerConversation)} KiB each; SDK alone (idle workflow): ${kib(m.floorPerWorkflow)} KiB each → ` +
      verdict(m.oursPerConversation / m.floorPerWorkflow, TARGETS.idleMemoryOverSdk),
  );
}

void main();
