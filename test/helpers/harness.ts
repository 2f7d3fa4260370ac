// Per-test wiring: a worker on a unique task queue against the run's shared dev server, with the model
// profile pointed at a scripted mock endpoint and the workspace at a fresh temp dir.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { Hermes, hermesDataConverter } from '../../src/client';
import { installRuntimeLogger, logger } from '../../src/observe/logger';
import { defineProfile, type ProfileSet, type ToolCallMode } from '../../src/llm/profiles';
import { createHermesWorker, type HermesWorkerOptions } from '../../src/worker';
import { closeWorkerConnection } from '../../src/startup/connection';
import { MockModel, type Reply } from './mock-model';
import { waitFor } from './wait';

installRuntimeLogger('ERROR');
// The per-step lines (info) of every test's worker would bury the output; HERMES_LOG_LEVEL=info shows them.
if (!process.env.HERMES_LOG_LEVEL) logger.level = 'warn';

let counter = 0;

/**
 * The workers of this harness run their workflows in the test's own thread (the SDK's debug mode, which replay
 * workers use too) instead of a workflow thread of their own: starting that thread and loading the SDK and the bundle
 * into it cost ~0.4 s of CPU and ~0.3 s per worker (measured: 540 vs 240 ms a one-step `run`, 640 vs 250 ms of CPU),
 * and the integration tier makes a worker per test. The same sandbox (a reused V8 context) runs the same bundle; what
 * only threads have — the isolate's deadlock timeout, one thread per worker — is covered by the `hermes worker`
 * processes of the process tier. HERMES_TEST_THREADS=1 runs these workers threaded too.
 */
const IN_PROCESS = process.env.HERMES_TEST_THREADS === '1' ? {} : { debugMode: true };

export interface Harness {
  hermes: Hermes;
  client: Client;
  mock: MockModel;
  workspace: string;
  taskQueue: string;
  /** Runs fn while a worker polls this harness's task queue. */
  run<T>(fn: () => Promise<T>, workerOptions?: Partial<HermesWorkerOptions>): Promise<T>;
  newWorker(workerOptions?: Partial<HermesWorkerOptions>): Promise<Worker>;
  close(): Promise<void>;
}

export async function createHarness(script: Reply[] = [], profiles?: (baseURL: string) => ProfileSet): Promise<Harness> {
  const address = inject('temporalAddress');
  const mock = await MockModel.start(script);
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  // The client a user creates with Hermes's data converter: the payload store (a large reply or a long
  // conversation's carried state is kept there by the worker) and the codec when a key is set.
  const converter = hermesDataConverter();
  const client = new Client({ connection, ...(converter ? { dataConverter: converter } : {}) });
  const taskQueue = `test-${process.pid}-${++counter}-${Date.now().toString(36)}`;
  const hermes = await Hermes.connect({ client, taskQueue });
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-ws-'));
  const profileSet = profiles?.(mock.baseURL) ?? {
    defaultName: 'default',
    profiles: { default: defineProfile('default', { baseURL: mock.baseURL, model: 'mock-model' }) },
  };
  const newWorker = ({ tuning, ...o }: Partial<HermesWorkerOptions> = {}) =>
    createHermesWorker({
      connection: nativeConnection,
      taskQueue,
      profiles: profileSet,
      workspace,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      ...o,
      tuning: { ...IN_PROCESS, ...tuning },
    });
  return {
    hermes,
    client,
    mock,
    workspace,
    taskQueue,
    newWorker,
    async run(fn, o) {
      const worker = await newWorker(o);
      // fn starts once the server has seen the worker's first poll: `hermes serve` refuses a turn (503) while
      // DescribeTaskQueue shows no poller, and on a loaded machine that first poll can come after fn's first call.
      return worker.runUntil(async () => {
        await waitFor('the worker polling', () => hermes.workerPolling());
        return fn();
      });
    },
    async close() {
      await mock.close();
      await connection.close();
      await closeWorkerConnection(nativeConnection);
    },
  };
}

/** A scripted tool call reply. */
export function toolCall(name: string, args: object | string, id?: string): Reply {
  return { toolCalls: [{ name, arguments: args, ...(id ? { id } : {}) }] };
}

/** Profiles for createHarness: the default profile against the mock, in one tool-call mode. */
export const withMode = (toolCallMode: ToolCallMode) => (baseURL: string) => ({
  defaultName: 'default',
  profiles: { default: defineProfile('default', { baseURL, model: 'mock-model', toolCallMode }) },
});

export function answer(content: string): Reply {
  return { content };
}

/** Content of the tool message answering call `id` in a recorded request. */
export function toolResult(messages: Array<{ role: string; tool_call_id?: string; content?: unknown }>, id: string) {
  return messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content as string | undefined;
}
