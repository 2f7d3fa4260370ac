// Determinism: every recorded history in test/fixtures/histories replays cleanly against today's workflow
// code, and a deliberately changed workflow fails the same corpus (so this test can fail).
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { bundleOptions } from '../src/bundle';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { installRuntimeLogger } from '../src/logger';

installRuntimeLogger('ERROR');
const DIR = path.resolve('test/fixtures/histories');
const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();

function* corpus() {
  for (const f of files) {
    yield { workflowId: f.replace(/\.json$/, ''), history: historyFromJSON(JSON.parse(readFileSync(path.join(DIR, f), 'utf8'))) };
  }
}

async function replay(options: Parameters<typeof Worker.runReplayHistories>[0]) {
  const results: Array<{ id: string; error?: Error }> = [];
  for await (const r of Worker.runReplayHistories(options, corpus())) results.push({ id: r.workflowId, error: r.error });
  return results;
}

describe('replay corpus', () => {
  it('has the main scenarios', () => {
    for (const name of ['tool-round-trip', 'invalid-and-parallel', 'budget-exhausted', 'model-retry', 'model-auth', 'continue-as-new-run1', 'interrupt-redirect', 'clarify-approval', 'chat', 'chat-patched', 'token-budget']) {
      expect(files).toContain(`${name}.json`);
    }
  });

  it('replays every recorded history with the current workflow code', async () => {
    const results = await replay({ workflowBundle: { codePath: inject('workflowBundlePath') } });
    expect(results).toHaveLength(files.length);
    expect(results.filter((r) => r.error).map((r) => `${r.id}: ${r.error!.message}`)).toEqual([]);
  });

  it('fails on a deliberately changed workflow', async () => {
    const bundle = await bundleWorkflowCode(bundleOptions(path.resolve('test/fixtures/changed-workflow/index.ts')));
    const results = await replay({ workflowBundle: bundle });
    expect(results).toHaveLength(files.length);
    const failed = results.filter((r) => r.error);
    expect(failed).toHaveLength(files.length);
    expect(failed[0]!.error!.name).toMatch(/DeterminismViolation/);
  });
});
