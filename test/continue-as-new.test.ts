// A long conversation across many runs: with the server's continue-as-new suggestion lowered (200 events, about 22
// iterations), a 120-iteration conversation must take several runs and still give the scripted answer and usage
// totals, with one workflow id. Its own dev server, because the dynamic config applies to the whole server.
import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Hermes, hermesDataConverter } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { installRuntimeLogger } from '../src/observe/logger';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../src/shared/defaults';
import { ALL_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { createHermesWorker } from '../src/worker';
import { MockModel, type Reply } from './helpers/mock-model';

installRuntimeLogger('ERROR');
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: inject('temporalCliPath') },
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      extraArgs: ['--log-level', 'error', ...DEV_SERVER_DYNAMIC_CONFIG, '--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=200'],
    },
  });
});
afterAll(async () => {
  await env?.teardown();
});

describe('continue-as-new', () => {
  it('runs 120 iterations over several runs with the same answer and usage totals', async () => {
    const N = 120;
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-can-'));
    writeFileSync(path.join(workspace, 'data.txt'), Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n'));
    // Alternate an activity tool and a workflow-internal one; vary arguments so the repetition guard stays quiet.
    const script: Reply[] = Array.from({ length: N }, (_, i) =>
      i % 2
        ? { toolCalls: [{ name: 'read_file', arguments: { path: 'data.txt', offset: (i % 40) + 1, limit: 3 } }] }
        : { toolCalls: [{ name: 'todo', arguments: { todos: [{ id: String(i), content: `step ${i}`, status: 'completed' }], merge: true } }] },
    );
    script.push({ content: `all ${N} steps done`, usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const mock = await MockModel.start(script);
    const taskQueue = `can-${Date.now()}`;
    const worker = await createHermesWorker({
      connection: env.nativeConnection,
      taskQueue,
      profiles: { defaultName: 'default', profiles: { default: defineProfile('default', { baseURL: mock.baseURL, model: 'mock' }) } },
      workspace,
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    // Hermes's data converter: the carried state of a long run is in the payload store (src/storage).
    const client = new Client({ connection: env.connection, dataConverter: hermesDataConverter() });
    const hermes = await Hermes.connect({ client, taskQueue });
    try {
      const { result, id, state, details } = await worker.runUntil(async () => {
        const handle = await hermes.start({ prompt: `do ${N} steps`, maxIterations: 1000 });
        const result = await handle.result();
        // Queries need a worker: ask while this one still polls.
        const meta = await client.workflow.getHandle(handle.id).query<{ currentDetails: string }>('__temporal_workflow_metadata');
        return { result, id: handle.id, state: await handle.state(), details: meta.currentDetails };
      });
      expect(result.status).toBe('completed');
      expect(result.answer).toBe(`all ${N} steps done`);
      expect(result.iterations).toBe(N + 1);
      expect(result.toolCalls).toBe(N);
      expect(result.usage).toEqual({ promptTokens: N * 10 + 7, completionTokens: N * 5 + 3, totalTokens: N * 15 + 10, costUsd: 0 });
      expect(result.runs).toBeGreaterThanOrEqual(3);
      // Every run shares the workflow id; the chain is visible to the client.
      const runs = [];
      for await (const w of env.client.workflow.list({ query: `WorkflowId = '${id}'` })) runs.push(w.runId);
      expect(runs.length).toBe(result.runs);
      // The last run's details say where it continues from (list is newest first): the run before it, its step,
      // what it carried and where.
      const lastRun = await env.client.workflow.getHandle(id, runs[0]).describe();
      expect(details).toMatch(
        new RegExp(
          `continues run \`${runs[1]}\` after step \\d+ \\(iteration \\d+\\): carried \\d+ messages, [\\d,]+ KB of state, (inline in the input|in the payload store)`,
        ),
      );
      expect(lastRun.memo?.hermesContinuedFrom).toMatchObject({ runId: runs[1], messages: expect.any(Number) });
      // The model saw one continuous conversation: the last request holds every earlier step.
      const last = mock.requests.at(-1)!;
      expect(last.messages.filter((m) => m.role === 'tool')).toHaveLength(N);
      // The todo list was carried across runs.
      expect(state.todo).toHaveLength(N / 2);
      mock.assertDone();
    } finally {
      await mock.close();
    }
  }, 240_000);
});
