// `hermes inspect`: the history holds only references, yet the exact model input of any step is rebuilt.
import { execFile } from 'node:child_process';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { fetchRunHistories, fetchRuns, modelViewAt, stepRows } from '../src/inspect/step-context';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { stateWhen } from './helpers/wait';

const exec = promisify(execFile);
const toolText = (messages: Array<{ role: string; tool_call_id?: string; content?: unknown }>, id: string) =>
  String(messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content);
let h: Harness;
let open: Harness | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});
const harness = async (...args: Parameters<typeof createHarness>): Promise<Harness> => (open = h = await createHarness(...args));

describe('inspect', () => {
  it('rebuilds exactly what the model saw at each step, and model inputs stay small', async () => {
    const big = 'y'.repeat(4_000);
    await harness([
      toolCall('read_file', { path: 'big.txt' }, 'c1'),
      toolCall('write_file', { path: 'out.txt', content: 'done' }, 'c2'),
      toolCall('list_dir', {}, 'c3'),
      answer('finished'),
    ]);
    writeFileSync(path.join(h.workspace, 'big.txt'), big);
    const { id, views, rows, cli } = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'inspect me' });
      await handle.result();
      // One at a time, as `hermes inspect` does: queries on a closed workflow replay it on the worker.
      const views = [];
      for (const n of [1, 2, 3, 4]) views.push(await modelViewAt(h.client, handle.id, n));
      const rows = stepRows(await fetchRuns(h.client, handle.id));
      const cli = await exec(process.execPath, [path.resolve('bin/hermes.js'), 'inspect', handle.id, '--step', '3'], {
        env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue },
      });
      return { id: handle.id, views, rows, cli };
    });
    expect(id).toBeTruthy();
    views.forEach((v, i) => {
      expect(v.messages).toEqual(h.mock.requests[i]!.messages);
      expect(v.tools.map((t) => t.function.name)).toEqual(h.mock.requests[i]!.tools);
    });
    expect(rows.map((r) => `${r.step}:${r.kind}:${r.name}:${r.status}`)).toEqual([
      '1:model:model mock-model:completed',
      '1:tool:read_file:completed',
      '2:model:model mock-model:completed',
      '2:tool:write_file:completed',
      '3:model:model mock-model:completed',
      '3:tool:list_dir:completed',
      '4:model:model mock-model:completed',
    ]);
    // The 4 KB file went into history once (the tool result), never into a model input: after the first call (which
    // brings the opening context: system prompt and request) every input is a reference.
    const [first, ...modelInputs] = rows.filter((r) => r.kind === 'model').map((r) => r.bytesIn);
    expect(first).toBeLessThan(4000);
    expect(Math.max(...modelInputs)).toBeLessThan(400);
    expect(Math.max(...modelInputs) - Math.min(...modelInputs)).toBeLessThan(20);
    expect(cli.stdout).toContain('model step 3');
    expect(cli.stdout).toContain('--- [1] user\ninspect me');
    expect(cli.stdout).toContain('→ c2 write_file({"path":"out.txt","content":"done"})');
  });

  it('shows the steps before a context-overflow compression exactly', async () => {
    const big = (c: string) => c.repeat(3_000);
    await harness([
      toolCall('terminal', { command: `printf '${big('a')}'` }, 'a'),
      // Called by a wrong name: the tool message carries a note the rebuild must reproduce.
      toolCall('Read-File', { path: 'big.txt' }, 'b'),
      // Results the workflow writes itself: a todo list, and a duplicate call's copy of the first one's output.
      toolCall('todo', { todos: ['plan', 'build', 'test', 'ship'].map((w, i) => ({ id: String(i + 1), content: `${w} `.repeat(20) })) }, 't'),
      // A human's long answer to a clarify question, from an update.
      toolCall('clarify', { question: 'Which way?' }, 'q'),
      {
        toolCalls: [
          { id: 'r1', name: 'read_file', arguments: { path: 'big.txt', limit: 1 } },
          { id: 'r2', name: 'read_file', arguments: { path: 'big.txt', limit: 1 } },
        ],
      },
      // The same call id again, as some providers do in every message: first for a call that never runs (the
      // approval policy denies it), then for one that does.
      toolCall('terminal', { command: 'rm -rf build' }, 'a'),
      toolCall('terminal', { command: `printf '${big('c')}'` }, 'a'),
      toolCall('terminal', { command: 'echo 2' }, 'd'),
      toolCall('terminal', { command: 'echo 3' }, 'f'),
      toolCall('terminal', { command: 'echo 4' }, 'g'),
      { status: 400, body: { error: { message: "This model's maximum context length is 10 tokens" } } },
      toolCall('terminal', { command: 'echo 5' }, 'e'),
      answer('fits now'),
    ]);
    writeFileSync(path.join(h.workspace, 'big.txt'), big('b'));
    const views = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'prune me', approvalMode: 'deny' });
      await stateWhen(handle, (st) => Boolean(st.pendingQuestion));
      await handle.answer(`this way, ${'because '.repeat(40)}`);
      expect((await handle.result()).status).toBe('completed');
      const out = [];
      for (let n = 1; n <= 13; n++) out.push(await modelViewAt(h.client, handle.id, n));
      return out;
    });
    // Steps 1-11 saw version 0 (step 11 is the request that overflowed), 12-13 the compressed version 1: the
    // run kept version 0 when it rewrote it, so the context query answers for it exactly.
    expect(views.map((v) => `${v.contextVersion}${v.rebuilt ? ' rebuilt' : ''}${v.archived ? ' archived' : ''}`)).toEqual([
      ...Array(11).fill('0 archived'),
      '1',
      '1',
    ]);
    views.forEach((v, i) => expect(v.messages, `step ${i + 1}`).toEqual(h.mock.requests[i]!.messages));
    expect(toolText(views[10]!.messages, 'b')).toMatch(/^\(called as "Read-File", ran read_file\)\n/);
    expect(toolText(views[11]!.messages, 'b')).toBe('[read_file] big.txt lines 1–1 of 1');
    expect(toolText(views[10]!.messages, 'a')).toContain(big('a'));
    // The latest todo list stays whole: it is the model's plan.
    expect(toolText(views[10]!.messages, 't')).toMatch(/^Todo \(0\/4 done\):/);
    expect(toolText(views[11]!.messages, 't')).toBe(toolText(views[10]!.messages, 't'));
    expect(toolText(views[10]!.messages, 'r2')).toMatch(/^\(duplicate of call r1/);
    expect(toolText(views[11]!.messages, 'r2')).toBe('[read_file] big.txt lines 1–1 of 1');
    expect(toolText(views[10]!.messages, 'q')).toMatch(/^this way, because/);
    expect(toolText(views[11]!.messages, 'q')).toMatch(/^\[clarify\] Which way\? → 1 line, \d+ characters$/);
  });

  it('rebuilds every step of a conversation that continued as new, run by run', async () => {
    const steps = Array.from({ length: 12 }, (_, i) => toolCall('write_file', { path: `f${i}.txt`, content: `file ${i}` }, `w${i}`));
    await harness([...steps, answer('written')]);
    const { views, rows, result } = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'write a lot', maxHistoryEvents: 40 });
      const result = await handle.result();
      const views = [];
      for (let n = 1; n <= 13; n++) views.push(await modelViewAt(h.client, handle.id, n));
      return { views, rows: stepRows(await fetchRuns(h.client, handle.id)), result };
    });
    expect(result.runs).toBeGreaterThan(2);
    expect(new Set(rows.map((r) => r.run)).size).toBe(result.runs);
    views.forEach((v, i) => expect(v.messages, `step ${i + 1}`).toEqual(h.mock.requests[i]!.messages));
  });

  it('starts the chain at the oldest run left when earlier runs are past retention', async () => {
    // The recorded second run of a continued conversation; the server no longer has the first.
    const run2 = historyFromJSON(JSON.parse(readFileSync('test/fixtures/histories/continue-as-new-run2.json', 'utf8')));
    const prev = run2.events![0]!.workflowExecutionStartedEventAttributes!.continuedExecutionRunId!;
    expect(prev).toBeTruthy();
    const client = {
      workflow: {
        getHandle: (workflowId: string, runId?: string) => ({
          fetchHistory: async () => {
            if (runId === undefined) return run2;
            throw new WorkflowNotFoundError('not found', workflowId, runId);
          },
        }),
      },
    } as unknown as Client;
    const gone: string[] = [];
    const runs = await fetchRunHistories(client, 'wf', (r) => gone.push(r));
    expect(runs).toEqual([run2]);
    expect(gone).toEqual([prev]);
  });

  it('says clearly when the step does not exist', async () => {
    await harness([answer('one step')]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'x' });
      await handle.result();
      await expect(modelViewAt(h.client, handle.id, 5)).rejects.toThrow(/step 5 not found: .* has 1 model step/);
    });
  });
});
