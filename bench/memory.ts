// Scenario 4: memory per cached conversation. N chat conversations are started and left idle (each waits for a
// message, cached on the worker), next to N idle workflows of a bundle with nothing but one waiting workflow on
// a bare worker: the SDK's own cost per cached workflow. Each side runs in a fresh process
// (bench/memory-child.ts), so heap freed by other scenarios hides nothing; its RSS growth / N is the number.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Harness } from './harness';

const run = promisify(execFile);

async function child(kind: 'ours' | 'sdk', address: string, N: number): Promise<number> {
  const tsx = path.join(__dirname, '..', 'node_modules', '.bin', 'tsx');
  const { stdout } = await run(tsx, ['--expose-gc', path.join(__dirname, 'memory-child.ts'), kind, address, String(N)], {
    maxBuffer: 1 << 20,
    timeout: 180_000,
  });
  return (JSON.parse(stdout.trim().split('\n').pop()!) as { perWorkflow: number }).perWorkflow;
}

export async function scenarioMemory(h: Harness, N: number) {
  const address = h.env.connection.options.address;
  const oursPerConversation = await child('ours', address, N);
  const floorPerWorkflow = await child('sdk', address, N);
  return { N, oursPerConversation, floorPerWorkflow };
}

export type Memory = Awaited<ReturnType<typeof scenarioMemory>>;
