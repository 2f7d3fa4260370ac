// Determinism: every recorded history in test/fixtures/histories replays cleanly against today's workflow
// code, and a deliberately changed workflow fails the same corpus (so this test can fail).
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { bundleOptions } from '../src/bundle';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { fetchRunHistories } from '../src/inspect';
import { historiesOf, replayAll } from '../src/replay';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { spawnHermes } from './helpers/spawn-hermes';
import { installRuntimeLogger } from '../src/logger';

installRuntimeLogger('ERROR');
const DIR = path.resolve('test/fixtures/histories');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

function* corpus() {
  for (const f of files) {
    const history = historyFromJSON(JSON.parse(readFileSync(path.join(DIR, f), 'utf8')));
    // Replay under the recorded workflow id: a workflow that derives ids from its own (the delivery child,
    // `<id>-delivery`) replays only under it. Histories that do not record it use the file name.
    const recordedId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId;
    yield { workflowId: recordedId || f.replace(/\.json$/, ''), history };
  }
}

let changed: ReturnType<typeof bundleWorkflowCode> | undefined;
const changedBundle = () => (changed ??= bundleWorkflowCode(bundleOptions(path.resolve('test/fixtures/changed-workflow/index.ts'))));

async function replay(options: Parameters<typeof Worker.runReplayHistories>[0]) {
  const results: Array<{ id: string; error?: Error }> = [];
  for await (const r of Worker.runReplayHistories(options, corpus())) results.push({ id: r.workflowId, error: r.error });
  return results;
}

describe('replay corpus', () => {
  it('has the main scenarios', () => {
    for (const name of [
      'tool-round-trip',
      'invalid-and-parallel',
      'budget-exhausted',
      'model-retry',
      'model-auth',
      'continue-as-new-run1',
      'interrupt-redirect',
      'clarify-approval',
      'chat',
      'token-budget',
      'delegate',
      'delegate-child',
      'child-approvals',
      'child-approvals-child',
      'prompt-order',
      'fallback-chain',
      'memory-chat',
      'memory-store',
      'system-prompt',
    ]) {
      expect(files).toContain(`${name}.json`);
    }
  });

  it('replays every recorded history with the current workflow code', async () => {
    const results = await replay({ workflowBundle: { codePath: inject('workflowBundlePath') } });
    expect(results).toHaveLength(files.length);
    expect(results.filter((r) => r.error).map((r) => `${r.id}: ${r.error!.message}`)).toEqual([]);
  });

  it('fails on a deliberately changed workflow', async () => {
    const bundle = await changedBundle();
    const results = await replay({ workflowBundle: bundle });
    expect(results).toHaveLength(files.length);
    const failed = results.filter((r) => r.error);
    expect(failed).toHaveLength(files.length);
    expect(failed[0]!.error!.name).toMatch(/DeterminismViolation/);
  });
});

describe('hermes replay (conversations on the server)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
  });

  it('replays every run of live conversations, and fails them against a changed workflow', async () => {
    const writes = Array.from({ length: 6 }, (_, i) => toolCall('write_file', { path: `f${i}.txt`, content: `${i}` }, `w${i}`));
    h = await createHarness([...writes, answer('wrote six files')]);
    const id = await h.run(async () => {
      // A small history backstop: the conversation takes several runs, and all of them are replayed.
      const handle = await h!.hermes.start({ prompt: 'write', maxHistoryEvents: 40 });
      expect((await handle.result()).runs).toBeGreaterThan(1);
      return handle.id;
    });
    const runs = (await fetchRunHistories(h.client, id)).length;
    const good = await replayAll(historiesOf(h.client, [id]), { workflowBundle: { codePath: inject('workflowBundlePath') } });
    expect(good.map((r) => [r.workflowId, r.error])).toEqual(Array.from({ length: runs }, () => [id, undefined]));
    const bad = await replayAll(historiesOf(h.client, [id]), { workflowBundle: await changedBundle() });
    expect(bad).toHaveLength(runs);
    expect(bad[0]!.error).toMatch(/DeterminismViolation/);

    // The command, by id and by visibility query.
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress') };
    const byId = await spawnHermes(['replay', id], { env });
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toContain(`${runs} of ${runs} run(s) replay with this version's workflow code`);
    const byQuery = await spawnHermes(['replay', '--query', `WorkflowId = "${id}"`, '--json'], { env });
    expect(byQuery.code, byQuery.stderr).toBe(0);
    const listed = JSON.parse(byQuery.stdout) as Array<{ workflowId: string; error?: string }>;
    expect(listed.map((r) => r.workflowId)).toEqual(Array.from({ length: runs }, () => id));
    const usage = await spawnHermes(['replay'], { env });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/needs workflow ids, or --query/);
  }, 60_000);
});
