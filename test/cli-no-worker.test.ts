// A finished conversation answers `hermes status` and `hermes inspect --step` with no worker running: the server
// would replay it on a worker to answer the queries (and waited 30 s for one, then failed); the CLI replays its
// history itself. A run the workflow did not close (terminated) cannot be replayed so: said at once.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { spawnHermes } from './helpers/spawn-hermes';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const clusterEnv = (taskQueue: string) => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: taskQueue });

describe('a finished conversation, no worker', () => {
  it('status and inspect --step answer from the history, as a worker would', async () => {
    h = await createHarness([toolCall('read_file', { path: 'a.txt' }, 'r1'), answer('a.txt says hello')]);
    writeFileSync(path.join(h.workspace, 'a.txt'), 'hello from a.txt\n');
    const id = await h.run(async () => {
      const handle = await h!.hermes.start({ prompt: 'read a.txt' });
      await handle.result();
      return handle.id;
    });
    // The worker is gone (the server still lists it as a poller for a while: its query would wait for nothing).
    const env = clusterEnv(h.taskQueue);

    const status = await spawnHermes(['status', id], { env, timeoutMs: 60_000 });
    console.log(`hermes status (finished, no worker): ${status.ms} ms`);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^${id}: completed · iteration 2/90 · tokens 30 · tool calls 1 · runs 1`));
    expect(status.stdout).toContain('tool  read_file: a.txt');
    expect(status.stderr).toMatch(new RegExp(`no worker (polls task queue|on task queue) ${h.taskQueue}.*: answered by replaying the history here`));

    const json = await spawnHermes(['status', id, '--json'], { env, timeoutMs: 60_000 });
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'completed', temporalStatus: 'COMPLETED', iteration: 2 });

    const view = await spawnHermes(['inspect', id, '--step', '2'], { env, timeoutMs: 60_000 });
    console.log(`hermes inspect --step 2 (finished, no worker): ${view.ms} ms`);
    expect(view.code, view.stderr).toBe(0);
    expect(view.stdout).toMatch(/^model step 2 · model mock-model · profile default/);
    expect(view.stdout).toContain('hello from a.txt');
    // Exactly what the model received at that step.
    const sent = h.mock.requests[1]!.messages as Array<{ role: string; content: string | null }>;
    for (const m of sent) if (m.content) expect(view.stdout).toContain(m.content.split('\n')[0]!);
  }, 120_000);

  it('a terminated conversation cannot be replayed: status says so at once', async () => {
    h = await createHarness([{ content: 'never', delayMs: 30_000 }]);
    const handle = await h.run(async () => {
      const hd = await h!.hermes.start({ prompt: 'wait' });
      await h!.mock.waitForRequest(1, 20_000);
      await hd.workflow.terminate('enough');
      return hd;
    });
    const status = await spawnHermes(['status', handle.id], { env: clusterEnv(h.taskQueue), timeoutMs: 60_000 });
    console.log(`hermes status (terminated, no worker): ${status.ms} ms`);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(new RegExp(`^${handle.id}: terminated \\(Temporal: TERMINATED\\)`));
    expect(status.stderr).toMatch(new RegExp(`no worker (polls task queue|on task queue) ${h.taskQueue}.* to replay it`));
    expect(status.stderr).toContain('did not close itself');
  }, 90_000);
});
