// skill_manage's skills are durable and shared by every worker: a skill created by a conversation on worker process 1
// (a `hermes worker` child) is in the system prompt of a conversation on worker process 2 (a worker in this test's
// process) after process 1 was SIGKILLed, and skill_view loads it there. The store is a Temporal workflow read with
// `describe` (its memo), so the second worker — on a task queue of its own, which never ran the store — reads it
// without waiting for the dead worker's sticky queue to time out.
import { Client, Connection } from '@temporalio/client';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { NativeConnection } from '@temporalio/worker';
import { Hermes } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { createHermesWorker } from '../src/worker';
import { closeWorkerConnection } from '../src/startup/connection';
import { skillsWorkflowId } from '../src/shared/skills';
import { answer, toolCall, toolResult } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';

const cleanups = cleanupsAfterEach();
const SKILL =
  '---\nname: flaky-tests\ndescription: Reruns a flaky test suite with the seed printed. Use when tests fail at random.\n---\n# Flaky tests\nRun `npm test -- --seed=RUN-SEED-4411` twice and compare.\n';

describe('skills store across worker processes', () => {
  it('a skill skill_manage created on a worker that was then SIGKILLed is listed and loaded on another', async () => {
    const mock = await MockModel.start([
      toolCall('skill_manage', { action: 'create', name: 'flaky-tests', content: SKILL }, 'create'),
      answer('saved the skill'),
      toolCall('skill_view', { name: 'flaky-tests' }, 'view'),
      answer('following the skill'),
    ]);
    cleanups.push(() => mock.close());
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const client = new Client({ connection });
    const tag = `${process.pid}-${Date.now().toString(36)}`;
    const store = `test-${tag}`;
    cleanups.push(() => client.workflow.getHandle(skillsWorkflowId(store)).terminate('test over'));
    const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-skills-home-'));
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-skills-ws-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    const env = (taskQueue: string) =>
      workerEnv({ address, taskQueue, baseURL: mock.baseURL, workspace }, { HERMES_SANDBOX: 'none', HERMES_SKILLS_STORE: store, HOME: home });
    const first = startWorkerProcess(env(`skills-a-${tag}`), workspace);
    await first.ready;

    const onFirst = await Hermes.connect({ client, taskQueue: `skills-a-${tag}` });
    const r1 = await (await onFirst.start({ prompt: 'save how to handle flaky tests', approvalMode: 'allow' })).result();
    expect(r1.status, JSON.stringify(r1)).toBe('completed');
    expect(toolResult(mock.requests[1]!.messages, 'create')).toMatch(/^Created skill "flaky-tests" \(version 1\)\. Stored in the skills store/);
    first.child.kill('SIGKILL');
    await first.exited;

    // Worker process 2: this process, on another task queue (so nothing of the first conversation can run on it).
    const native = await NativeConnection.connect({ address });
    cleanups.push(() => closeWorkerConnection(native));
    const second = await createHermesWorker({
      connection: native,
      taskQueue: `skills-b-${tag}`,
      profiles: { defaultName: 'default', profiles: { default: defineProfile('default', { baseURL: mock.baseURL, model: 'mock' }) } },
      workspace,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      sandbox: 'none',
      skillsStore: store,
    });
    const onSecond = await Hermes.connect({ client, taskQueue: `skills-b-${tag}` });
    const t0 = Date.now();
    const r2 = await second.runUntil(async () => (await onSecond.start({ prompt: 'the tests fail at random' })).result());
    const ms = Date.now() - t0;
    expect(r2.status, JSON.stringify(r2)).toBe('completed');
    const system = mock.requests[2]!.messages[0].content as string;
    expect(system).toContain(
      '<available-skills>\n- flaky-tests: Reruns a flaky test suite with the seed printed. Use when tests fail at random.\n</available-skills>',
    );
    expect(toolResult(mock.requests[3]!.messages, 'view')).toMatch(/^Skill "flaky-tests" \(store: store test-[^,]+, version 1\)[^]*RUN-SEED-4411/);
    expect(mock.errors).toEqual([]);
    console.log(`[skills] conversation on worker 2 after worker 1 was SIGKILLed: ${ms} ms to its answer`);
  }, 120_000);
});
