// Two builds of the worker for the versioning tests: build A is this checkout, build B a copy of it with one
// comment more (another build id, the same behaviour), and where a conversation is pinned.
import { appendFileSync, copyFileSync, cpSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConversationHandle } from '../../src/client';

const REPO = path.resolve(__dirname, '../..');

/** Build B: this package copied (node_modules linked), with a comment added to the workflows' entry. */
export function buildB(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-build-b-'));
  cpSync(path.join(REPO, 'bin'), path.join(dir, 'bin'), { recursive: true });
  cpSync(path.join(REPO, 'src'), path.join(dir, 'src'), { recursive: true });
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json']) copyFileSync(path.join(REPO, f), path.join(dir, f));
  symlinkSync(realpathSync(path.join(REPO, 'node_modules')), path.join(dir, 'node_modules'));
  appendFileSync(path.join(dir, 'src/workflows/index.ts'), '// build B: the same workflows under another build id\n');
  return dir;
}

/** The build a conversation's current run is pinned to (undefined when unversioned). */
export async function pinnedBuild(c: ConversationHandle): Promise<string | undefined> {
  const d = await c.workflow.describe();
  return d.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
}

/** The build id a `hermes worker` said it runs as current. */
export const currentBuild = (output: string): string | undefined => /build (\w+) of deployment \S+, current\)/.exec(output)?.[1];
