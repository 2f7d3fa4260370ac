// `hermes replay` against conversations on the server: every run of a live conversation (a continue-as-new chain
// too) replays with this version's workflow code, a changed workflow fails them all, and the command finds runs by
// id and by visibility query. The recorded corpus and its negative controls: replay.test.ts.
import { bundleWorkflowCode } from '@temporalio/worker';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { bundleOptions } from '../src/startup/bundle';
import { fetchRunHistories } from '../src/inspect/step-context';
import { installRuntimeLogger } from '../src/observe/logger';
import { historiesOf, replayAll } from '../src/inspect/replay';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { spawnHermes } from './helpers/spawn-hermes';

installRuntimeLogger('ERROR');
/** A timer added before the loop (test/fixtures/changed-workflow/controls.ts, that control on): a nondeterminism error on replay. */
async function changedBundle(): Promise<{ code: string }> {
  const { code } = await bundleWorkflowCode(bundleOptions(path.resolve('test/fixtures/changed-workflow/controls.ts')));
  expect(code).toContain("'replay-control:off'");
  return { code: code.replace("'replay-control:off'", "'replay-control:added-timer'") };
}

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
