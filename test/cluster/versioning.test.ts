// Worker Deployment Versioning on the production server: a task pinned to build A waits for an approval while A's
// process stops and build B starts. B serves A from its kept bundle, `hermes doctor` counts A's open
// conversations from visibility (on PostgreSQL, where a stuck close used to keep them "Running" for good), and
// once the task finishes B says A drained and drops its bundle. The drain is a visibility count: it is right
// only if the close of the pinned run is recorded.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, toolCall } from '../helpers/harness';
import { spawnHermes } from '../helpers/spawn-hermes';
import { buildB, currentBuild, pinnedBuild } from '../helpers/two-builds';
import { stateWhen, waitFor } from '../helpers/wait';
import { cleanupsAfterEach, startWorkerProcess } from '../helpers/worker-process';
import { clusterSetup } from './cluster';

const cleanups = cleanupsAfterEach();

interface BuildRow {
  buildId: string;
  open: number;
  current: boolean;
  kept: boolean;
}

describe('worker versioning on PostgreSQL', () => {
  it('pins a task to its build, counts it open from visibility, and drains the build when the task finishes', async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-cluster-home-'));
    const copy = buildB();
    cleanups.push(() => [home, copy].forEach((d) => rmSync(d, { recursive: true, force: true })));
    const { hermes, env, workspace, taskQueue, mock } = await clusterSetup(
      cleanups,
      'versioning',
      [toolCall('terminal', { command: 'rm -rf build' }, 'rm1'), answer('Note: done on A; served by B.')],
      { HERMES_HOME: home, HERMES_DRAIN_CHECK_SEC: '1' },
    );
    const builds = async (): Promise<BuildRow[]> => {
      const doctor = await spawnHermes(['doctor', '--json'], { env: { ...env } });
      const checks = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; details?: { builds: BuildRow[] } }> }).checks;
      return checks.find((c) => c.name === 'builds')?.details?.builds ?? [];
    };

    const a = startWorkerProcess(env, workspace, 180_000);
    await a.ready;
    const buildA = currentBuild(a.output());
    expect(buildA, a.output()).toBeTruthy();
    const task = await hermes.start({ prompt: 'remove the build directory', workspace });
    await stateWhen(task, (s) => s.pendingApprovals.length > 0, 60_000);
    expect(await pinnedBuild(task)).toBe(buildA);
    a.child.kill('SIGTERM');
    expect((await a.exited).code).toBe(0);

    const b = startWorkerProcess(env, workspace, 180_000, path.join(copy, 'bin/hermes.js'));
    await b.ready;
    const buildB_ = currentBuild(b.output());
    expect(buildB_).toBeTruthy();
    expect(buildB_).not.toBe(buildA);
    expect(b.output()).toContain(`serving build ${buildA} too: 1 conversation is pinned to it`);
    expect(await builds()).toContainEqual({ buildId: buildA, open: 1, current: false, kept: true });

    await task.approve('rm1', 'deny');
    expect((await task.result()).answer).toBe('Note: done on A; served by B.');
    expect(await pinnedBuild(task)).toBe(buildA);
    await waitFor('build A to drain', () => b.output().includes(`build ${buildA} drained`), 60_000);
    expect(existsSync(path.join(home, 'builds', taskQueue, `${buildA}.js`))).toBe(false);
    const after = await builds();
    expect(after.find((r) => r.buildId === buildA)?.open ?? 0).toBe(0);
    expect(after).toContainEqual(expect.objectContaining({ buildId: buildB_, current: true }));
    mock.assertDone();
  }, 300_000);
});
