// `hermes schedule` on the production server: a task added and fired from the CLI runs on a worker process, and
// the firing is listed completed (`hermes schedule runs`, `hermes list`) — found by its HermesSchedule keyword.
import { describe, expect, it } from 'vitest';
import type { ConversationRow } from '../../src/inspect/list';
import type { TaskRun } from '../../src/schedules/client';
import { cleanupsAfterEach } from '../helpers/worker-process';
import { answer } from '../helpers/harness';
import { waitFor } from '../helpers/wait';
import { clusterSetup } from './cluster';

const cleanups = cleanupsAfterEach();

describe('schedules on PostgreSQL', () => {
  it('a firing triggered from the CLI runs on a worker and is listed completed', async () => {
    const { cli, worker, mock } = await clusterSetup(cleanups, 'schedule', [answer('The nightly report is ready')]);
    const name = `nightly-${Date.now().toString(36)}`;
    const w = worker();
    await w.ready;
    const add = await cli(['schedule', 'add', name, '--cron', '@yearly', 'Write the nightly report']);
    expect(add.code, add.stderr).toBe(0);
    cleanups.push(() => cli(['schedule', 'rm', name]));

    const fired = await cli(['schedule', 'trigger', name, '--json']);
    expect(fired.code, fired.stderr).toBe(0);
    const { workflowId } = JSON.parse(fired.stdout) as { workflowId: string | null };
    expect(workflowId).toBeTruthy();

    const runs = await waitFor(
      'the firing listed completed',
      async () => {
        const r = await cli(['schedule', 'runs', name, '--json']);
        const list = r.code === 0 ? (JSON.parse(r.stdout) as TaskRun[]) : [];
        return list.some((x) => x.status === 'completed') && list;
      },
      60_000,
    );
    expect(runs.map((r) => [r.workflowId, r.status, r.answer])).toEqual([[workflowId, 'completed', 'The nightly report is ready']]);
    const list = await cli(['list', '--json']);
    expect((JSON.parse(list.stdout) as ConversationRow[]).map((r) => [r.id, r.status])).toEqual([[workflowId, 'completed']]);
    expect(mock.requests.at(-1)!.messages.at(-1)).toMatchObject({ role: 'user', content: 'Write the nightly report' });
    mock.assertDone();
  }, 120_000);
});
