// Using Hermes from code with an in-process worker: connect({ worker }) → start → result → close.
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { NativeConnection } from '@temporalio/worker';
import { Hermes } from '../src/client';
import { createHermesWorker } from '../src/worker';
import { closeWorkerConnection } from '../src/startup/connection';
import { defineProfile } from '../src/llm/profiles';
import { installRuntimeLogger } from '../src/observe/logger';
import { answer, toolCall } from './helpers/harness';
import { MockModel } from './helpers/mock-model';

installRuntimeLogger('ERROR');
const saved = process.env.TEMPORAL_ADDRESS;
afterEach(() => {
  if (saved === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = saved;
});

describe('Hermes.connect({ worker })', () => {
  it('runs a conversation with a worker in the same process and stops it on close', async () => {
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    const mock = await MockModel.start([toolCall('write_file', { path: 'x.txt', content: 'from code' }), answer('written from code')]);
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-client-'));
    const hermes = await Hermes.connect({
      taskQueue: `client-${Date.now()}`,
      worker: {
        profiles: { defaultName: 'default', profiles: { default: defineProfile('default', { baseURL: mock.baseURL, model: 'm' }) } },
        workspace,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      },
    });
    try {
      const run = await hermes.start({ prompt: 'write x.txt' });
      const result = await run.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'written from code' });
      expect(readFileSync(path.join(workspace, 'x.txt'), 'utf8')).toBe('from code');
    } finally {
      await hermes.close();
      await mock.close();
    }
    await expect(Hermes.connect({ client: hermes.client, worker: true })).rejects.toThrow(/worker: true needs Hermes to make the connection/);
  });
});

describe('createHermesWorker', () => {
  it('passes Temporal worker tuning through, over its own defaults', async () => {
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    try {
      const worker = await createHermesWorker({
        connection,
        taskQueue: `tuning-${Date.now()}`,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        tuning: { workflowThreadPoolSize: 3, shutdownGraceTime: '1 second', maxCachedWorkflows: 77 },
      });
      await worker.runUntil(async () => {
        expect(worker.options.workflowThreadPoolSize).toBe(3);
        expect(worker.options.shutdownGraceTimeMs).toBe(1_000);
        expect(worker.options.maxCachedWorkflows).toBe(77);
        expect(worker.options.maxHeartbeatThrottleIntervalMs).toBe(250); // Hermes's own setting stays
      });
    } finally {
      await closeWorkerConnection(connection);
    }
  });

  it('closes a worker connection with its call-context store, so Node stops carrying it into every later promise', async () => {
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const store = connection.callContextStorage;
    // What an activity's client call does (withAbortSignal): run a call in the store, here one that reads it later.
    // The read waits for a gate opened after the close, not a timer that a slow close could outlast.
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let later!: Promise<unknown>;
    store.run({ deadline: 1 }, () => {
      later = gate.then(() => store.getStore());
    });
    await closeWorkerConnection(connection);
    open();
    // An enabled store still hands the call its context; a disabled one hands nobody anything.
    expect(await later).toBeUndefined();
  });
});
