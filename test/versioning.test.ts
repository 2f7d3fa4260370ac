// Upgrades by Worker Deployment Versioning (docs/versioning.md), with two builds of the worker on the shared dev
// server: build A is this checkout, build B a copy of it with one comment more (another build id, the same
// behaviour). Each is a real `hermes worker` process sharing one HERMES_HOME, as an upgrade in place does.
// Where each workflow task ran is read from the histories (the deployment version and the worker identity of
// every WorkflowTaskCompleted event), never from timings.
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { answer, toolCall } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { routed } from './helpers/routed-model';
import { spawnHermes } from './helpers/spawn-hermes';
import { buildB, pinnedBuild } from './helpers/two-builds';
import { stateWhen, waitFor } from './helpers/wait';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';

const cleanups = cleanupsAfterEach();

interface RunTasks {
  runId: string;
  /** Build id and worker identity of each completed workflow task, in order. */
  tasks: Array<{ build: string; identity: string }>;
  continuedAsNew: boolean;
}

/** Every run of a workflow id, first to last, following continue-as-new through the histories. */
async function runsOf(client: Client, h: WorkflowHandle): Promise<RunTasks[]> {
  const first = (await h.describe()).raw.workflowExecutionInfo?.firstRunId ?? undefined;
  const runs: RunTasks[] = [];
  for (let runId = first; runId;) {
    const history = await client.workflow.getHandle(h.workflowId, runId).fetchHistory();
    const events: temporal.api.history.v1.IHistoryEvent[] = history.events ?? [];
    const tasks = events.flatMap((e) => {
      const a = e.workflowTaskCompletedEventAttributes;
      return a ? [{ build: a.deploymentVersion?.buildId ?? '', identity: a.identity ?? '' }] : [];
    });
    const can = events.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)?.workflowExecutionContinuedAsNewEventAttributes;
    runs.push({ runId, tasks, continuedAsNew: Boolean(can) });
    runId = can?.newExecutionRunId ?? undefined;
  }
  return runs;
}

describe('worker deployment versioning (two builds of hermes worker)', () => {
  it(
    'pins runs to their build, moves an idle chat at its next boundary, and serves a stopped build from its kept bundle',
    { timeout: 300_000 },
    async () => {
      const routes = routed({
        'task one': [toolCall('terminal', { command: 'rm -rf build' }, 'rm1'), answer('task one done')],
        'chat one': [answer('first answer'), answer('second answer')],
        'task two': [answer('task two done')],
        // A long task: after its approval it keeps working past maxHistoryEvents, so it continues as new.
        'task three': [
          toolCall('terminal', { command: 'rm -rf dist' }, 'rm3'),
          ...Array.from({ length: 8 }, (_, i) => toolCall('terminal', { command: `echo step ${i}` }, `e${i}`)),
          answer('task three done'),
        ],
      });
      const mock = await MockModel.start(routes.script);
      cleanups.push(() => mock.close());
      const address = inject('temporalAddress');
      const connection = await Connection.connect({ address });
      cleanups.push(() => connection.close());
      const client = new Client({ connection });
      const taskQueue = `versioning-${process.pid}-${Date.now().toString(36)}`;
      const hermes = await Hermes.connect({ client, taskQueue });
      const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-versioning-home-'));
      const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-versioning-ws-'));
      const copy = buildB();
      cleanups.push(() => [home, workspace, copy].forEach((d) => rmSync(d, { recursive: true, force: true })));
      const env = workerEnv(
        { address, taskQueue, baseURL: mock.baseURL, workspace },
        { HERMES_HOME: home, HERMES_DRAIN_CHECK_SEC: '1', HERMES_SANDBOX: 'none' },
      );

      // Build A: a task waits for an approval, a chat is idle after its first answer; then A's process stops.
      const a = startWorkerProcess(env, workspace, 180_000);
      await a.ready;
      const buildA = /build (\w+) of deployment \S+, current\)/.exec(a.output())?.[1];
      expect(buildA, a.output()).toBeTruthy();
      const task1 = await hermes.start({ prompt: 'task one: remove the build directory' });
      await stateWhen(task1, (s) => s.pendingApprovals.length > 0, 60_000);
      const task3 = await hermes.start({ prompt: 'task three: a long one', maxHistoryEvents: 40 });
      await stateWhen(task3, (s) => s.pendingApprovals.length > 0, 60_000);
      const chat = await hermes.start({ mode: 'chat', prompt: 'chat one: hello' });
      await stateWhen(chat, (s) => s.status === 'idle' && s.turn === 1, 60_000);
      // A memory scope, open for good, follows the current build instead of keeping A alive (AUTO_UPGRADE).
      const memory = hermes.memory(taskQueue);
      await memory.write({ action: 'add', store: 'notes', text: 'written on A' });
      const memoryHandle = client.workflow.getHandle(memory.workflowId);
      const memoryVersioning = async () => (await memoryHandle.describe()).raw.workflowExecutionInfo?.versioningInfo;
      expect(await memoryVersioning()).toMatchObject({
        behavior: temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE,
        deploymentVersion: { buildId: buildA },
      });
      expect(await pinnedBuild(task1)).toBe(buildA);
      expect(await pinnedBuild(chat)).toBe(buildA);
      a.child.kill('SIGTERM');
      expect((await a.exited).code).toBe(0);
      expect(existsSync(path.join(home, 'builds', taskQueue, `${buildA}.js`))).toBe(true);

      // Build B: current at once, and it serves A's three pinned conversations from A's kept bundle.
      const b = startWorkerProcess(env, workspace, 180_000, path.join(copy, 'bin/hermes.js'));
      await b.ready;
      const buildB_ = /build (\w+) of deployment \S+, current\)/.exec(b.output())?.[1];
      expect(buildB_, b.output()).toBeTruthy();
      expect(buildB_).not.toBe(buildA);
      expect(b.output()).toContain(`serving build ${buildA} too: 3 conversations are pinned to it`);

      const doctor = await spawnHermes(['doctor', '--json'], { env: { ...env } });
      const builds = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; details?: { builds: unknown[] } }> }).checks.find(
        (c) => c.name === 'builds',
      );
      expect(builds?.details?.builds).toContainEqual({ buildId: buildA, open: expect.any(Number), current: false, kept: true });
      expect(builds?.details?.builds).toContainEqual({ buildId: buildB_, open: expect.any(Number), current: true, kept: true });

      // The idle chat moves to B without a message: B's worker asked it to, and it continued as new.
      await waitFor('the idle chat to move to build B', async () => (await pinnedBuild(chat)) === buildB_, 60_000);
      // A new task runs on B while the old one is still open on A.
      const task2 = await hermes.start({ prompt: 'task two: say hi' });
      expect((await task2.result()).answer).toBe('task two done');
      expect((await task1.state()).status).toBe('waiting');
      // The old task finishes on A, served by B's process.
      await task1.approve('rm1', 'deny');
      expect((await task1.result()).answer).toBe('task one done');
      // The long task goes on on A, and moves to B at its next continue-as-new.
      await task3.approve('rm3', 'deny');
      expect((await task3.result()).answer).toBe('task three done');
      // The chat answers its next message on B.
      expect((await chat.send('and now?')).answer).toBe('second answer');

      const identityB = `${b.pid}@${os.hostname()}`;
      const [t1] = await runsOf(client, task1.workflow);
      expect(new Set(t1!.tasks.map((t) => t.build))).toEqual(new Set([buildA]));
      expect(t1!.tasks.at(-1)!.identity).toBe(identityB); // the approval's tasks: A's code in B's process
      expect(t1!.tasks[0]!.identity).not.toBe(identityB);
      const t2 = await runsOf(client, task2.workflow);
      expect(t2).toHaveLength(1);
      expect(new Set(t2[0]!.tasks.map((t) => t.build))).toEqual(new Set([buildB_]));
      const t3 = await runsOf(client, task3.workflow);
      expect(t3.length).toBeGreaterThan(1);
      expect(new Set(t3[0]!.tasks.map((t) => t.build))).toEqual(new Set([buildA]));
      expect(new Set(t3.slice(1).flatMap((r) => r.tasks.map((t) => t.build)))).toEqual(new Set([buildB_]));
      const chatRuns = await runsOf(client, chat.workflow);
      expect(chatRuns).toHaveLength(2);
      expect(chatRuns[0]!.continuedAsNew).toBe(true);
      expect(new Set(chatRuns[0]!.tasks.map((t) => t.build))).toEqual(new Set([buildA]));
      expect(new Set(chatRuns[1]!.tasks.map((t) => t.build))).toEqual(new Set([buildB_]));
      // What the model saw: the second turn (on B) carried the first turn's context over.
      const second = routes.requests['chat one']![1]!;
      expect(second.messages.map((m: { content: unknown }) => m.content)).toEqual(
        expect.arrayContaining(['chat one: hello', 'first answer', 'and now?']),
      );

      // A drained (its task done, its chat moved): B stops serving it and drops its kept bundle.
      await chat.workflow.signal('end');
      await waitFor('build A to drain', () => b.output().includes(`build ${buildA} drained`), 60_000);
      expect(existsSync(path.join(home, 'builds', taskQueue, `${buildA}.js`))).toBe(false);
      expect(existsSync(path.join(home, 'builds', taskQueue, `${buildB_}.js`))).toBe(true);
      // The memory scope did not hold A back; its next write runs on B.
      expect((await memoryVersioning())?.deploymentVersion?.buildId).toBe(buildA);
      await memory.write({ action: 'add', store: 'notes', text: 'written on B' });
      expect(await memoryVersioning()).toMatchObject({ deploymentVersion: { buildId: buildB_ } });
      expect((await memory.read()).notes.entries).toEqual(['written on A', 'written on B']);
      expect(routes.left()).toEqual({ 'task one': 0, 'chat one': 0, 'task two': 0, 'task three': 0 });
      expect(mock.errors).toEqual([]);
    },
  );

  it('runs unversioned, and says so in one line, where the server has worker deployments disabled', { timeout: 180_000 }, async () => {
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: inject('temporalCliPath') },
        extraArgs: ['--log-level', 'error', '--dynamic-config-value', 'system.enableDeploymentVersions=false'],
      },
    });
    cleanups.push(() => env.teardown());
    const address = env.connection.options.address;
    const mock = await MockModel.start([answer('done unversioned')]);
    cleanups.push(() => mock.close());
    const taskQueue = `unversioned-${process.pid}-${Date.now().toString(36)}`;
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-versioning-ws-'));
    const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-versioning-home-'));
    cleanups.push(() => [home, workspace].forEach((d) => rmSync(d, { recursive: true, force: true })));
    const w = startWorkerProcess(
      workerEnv({ address, taskQueue, baseURL: mock.baseURL, workspace }, { HERMES_HOME: home, HERMES_SANDBOX: 'none' }),
      workspace,
      120_000,
    );
    await w.ready;
    const lines = w
      .output()
      .split('\n')
      .filter((l) => l.startsWith('hermes worker'));
    expect(lines[0]).toBe(
      'hermes worker: worker versioning unavailable: the server refuses Worker Deployment calls: Worker Deployment Versions are disabled on this namespace; ' +
        'running unversioned (an upgrade replays open conversations on the new code)',
    );
    expect(lines[1]).toMatch(/; unversioned \(the server cannot version workers\)\)$/);
    const hermes = await Hermes.connect({ client: env.client, taskQueue });
    const run = await hermes.start({ prompt: 'hello' });
    expect((await run.result()).answer).toBe('done unversioned');
    const [only] = await runsOf(env.client, run.workflow);
    expect(only!.tasks.map((t) => t.build)).toEqual(only!.tasks.map(() => ''));
    expect(existsSync(path.join(home, 'builds'))).toBe(false);
  });
});
