// A worker process SIGKILLed while three sub-agents are mid-step: after a new worker starts, every child
// completes exactly once (the replayed parent finds the children it started instead of starting copies), no
// completed tool runs again, and the parent's one tool result has every summary.
import { Client, Connection } from '@temporalio/client';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import type { ConversationResult } from '../src/shared/contract';
import { answer, toolCall, toolResult } from './helpers/harness';
import { MockModel, type Reply } from './helpers/mock-model';
import { routed } from './helpers/routed-model';
import { waitFor } from './helpers/wait';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';

const cleanups = cleanupsAfterEach();

describe('sub-agents survive a worker crash', () => {
  it('each child completes exactly once after the worker is SIGKILLed mid-step; the parent gets all summaries', async () => {
    const names = ['north', 'south', 'west'];
    const child = (n: string): Reply[] => [
      toolCall('terminal', { command: `echo ${n} >> side.txt` }),
      // In flight when the worker dies (the request is aborted); answered again on the new worker.
      { content: `${n} lost`, delayMs: 20_000 },
      answer(`${n} summary after the crash`),
    ];
    const r = routed({
      'crash parent': [toolCall('delegate_task', { tasks: names.map((n) => ({ goal: `${n} job` })) }, 'd1'), answer('all back')],
      ...Object.fromEntries(names.map((n) => [`${n} job`, child(n)])),
    });
    const mock = await MockModel.start(r.script);
    cleanups.push(() => mock.close());
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const client = new Client({ connection });
    const taskQueue = `delegate-crash-${process.pid}-${Date.now().toString(36)}`;
    const hermes = await Hermes.connect({ client, taskQueue });
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-delegate-crash-'));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    const env = workerEnv({ address, taskQueue, baseURL: mock.baseURL, workspace }, { HERMES_SANDBOX: 'none' });

    const first = startWorkerProcess(env, workspace);
    await first.ready;
    const handle = await hermes.start({ prompt: 'crash parent work', workspace, toolHeartbeatSec: 2, modelHeartbeatSec: 2 });
    await waitFor('all three children mid-step', () => names.every((n) => (r.requests[`${n} job`] ?? []).length >= 2), 30_000);
    const tKill = Date.now();
    first.child.kill('SIGKILL');
    await first.exited;
    const second = startWorkerProcess(env, workspace);
    await second.ready;
    const result = await handle.result();
    console.log(`[delegate: crash] parent result ${((Date.now() - tKill) / 1000).toFixed(1)} s after the kill`);

    expect(result.status, JSON.stringify(result)).toBe('completed');
    expect(result.answer).toBe('all back');
    const content = toolResult(r.requests['crash parent']![1]!.messages, 'd1')!;
    expect(content).toMatch(/^3 sub-agent\(s\): 3 completed/);
    for (const n of names) expect(content).toContain(`${n} summary after the crash`);

    // Exactly three children, each completed once; each terminal command ran once.
    const ids: string[] = [];
    for await (const w of client.workflow.list({ query: `ParentWorkflowId = "${handle.id}"` })) ids.push(w.workflowId);
    expect(ids.sort()).toEqual([1, 2, 3].map((i) => `${handle.id}-agent1-d1-${i}`));
    for (const id of ids) {
      const d = await client.workflow.getHandle(id).describe();
      expect(d.status.name).toBe('COMPLETED');
      expect(((await client.workflow.getHandle(id).result()) as ConversationResult).status).toBe('completed');
    }
    const side = path.join(workspace, 'side.txt');
    const lines = (existsSync(side) ? readFileSync(side, 'utf8') : '').split('\n').filter(Boolean);
    expect(lines.sort()).toEqual([...names].sort());
    // The cut-off model calls were asked again on the new worker.
    for (const n of names) expect(r.requests[`${n} job`]!.map((q) => Boolean(q.aborted))).toEqual([false, true, false]);
    mock.assertDone();
  }, 120_000);
});
