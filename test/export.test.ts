// `hermes export` and `hermes list` as a user runs them (the real CLI in cluster mode, a worker in the test
// process): trajectories equal what the scripted model received, and the list shows what the runs did.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { ConversationRow } from '../src/inspect/list';
import type { ShareGptRecord, TrajectoryRecord } from '../src/export';
import type { ConversationResult } from '../src/shared/contract';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { spawnHermes } from './helpers/spawn-hermes';
import { stateWhen, waitFor } from './helpers/wait';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const clusterEnv = (taskQueue: string) => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: taskQueue });
const lines = (out: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);

describe('hermes export and hermes list', () => {
  it('exports three runs exactly as the model saw them, in both formats, and lists them', async () => {
    h = await createHarness([
      // run 1: a read, then the answer
      toolCall('read_file', { path: 'notes.txt' }, 'r1'),
      answer('the notes say hello'),
      // run 2: the answer straight away
      answer('four'),
      // run 3: two tool rounds (one of two parallel calls), then the answer
      {
        toolCalls: [
          { id: 'l1', name: 'list_dir', arguments: {} },
          { id: 'l2', name: 'read_file', arguments: { path: 'notes.txt' } },
        ],
      },
      toolCall('write_file', { path: 'out.txt', content: 'done' }, 'w1'),
      answer('wrote out.txt'),
      // run 4: waits on a question (for list --status waiting)
      toolCall('clarify', { question: 'Which branch?' }, 'q1'),
    ]);
    const harness = h;
    writeFileSync(path.join(harness.workspace, 'notes.txt'), 'hello\n');
    const env = clusterEnv(harness.taskQueue);
    await harness.run(async () => {
      const prompts = ['read the notes\nand say what they say', 'what is 2+2?', 'list, read and write'];
      const runs: Array<{ id: string; result: ConversationResult; lastRequest: number }> = [];
      for (const prompt of prompts) {
        const handle = await harness.hermes.start({ prompt, tools: ['read_file', 'list_dir', 'write_file'] });
        const result = await handle.result();
        expect(result.status).toBe('completed');
        runs.push({ id: handle.id, result, lastRequest: harness.mock.requests.length - 1 });
      }
      // Visibility is eventually consistent: wait until the three closed runs are listed.
      await waitFor('three closed runs in visibility', async () => {
        const n = await harness.client.workflow.count(`TaskQueue = "${harness.taskQueue}" AND ExecutionStatus = "Completed"`);
        return n.count === 3;
      });

      // openai: every line's messages are the last request's messages, then the reply.
      const out = await spawnHermes(['export'], { env });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stderr).toContain('3 conversation(s) exported');
      const records = lines(out.stdout) as TrajectoryRecord[];
      expect(records.map((r) => r.id)).toEqual(runs.map((r) => r.id)); // oldest first
      records.forEach((rec, i) => {
        const req = harness.mock.requests[runs[i]!.lastRequest]!;
        expect(rec.messages.slice(0, req.messages.length)).toEqual(req.messages);
        expect(rec.messages.slice(req.messages.length)).toEqual([{ role: 'assistant', content: runs[i]!.result.answer }]);
        expect(rec.messages[0]!.role).toBe('system');
        expect(rec.tools.map((t) => t.function.name)).toEqual(req.tools);
        expect(rec.tools[0]!.function.parameters).toEqual(req.body.tools[0].function.parameters);
        expect(rec).toMatchObject({ status: 'completed', usage: runs[i]!.result.usage, iterations: runs[i]!.result.iterations, subagents: [] });
        expect(rec.runIds).toHaveLength(1);
        expect(Date.parse(rec.closedAt)).toBeGreaterThanOrEqual(Date.parse(rec.startedAt));
        expect(rec.steps.filter((s) => s.kind === 'model')).toHaveLength(runs[i]!.result.modelCalls);
      });
      // Tool calls and results are in the messages: run 3's parallel round and its results.
      const third = records[2]!.messages;
      expect(third.find((m) => m.role === 'assistant' && m.tool_calls?.length === 2)).toBeTruthy();
      expect(third.filter((m) => m.role === 'tool').map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(['l1', 'l2', 'w1']);

      // By id, one of them: the same line.
      const one = await spawnHermes(['export', runs[1]!.id], { env });
      expect(lines(one.stdout)).toEqual([records[1]]);

      // sharegpt: the upstream shape, read back by a small check.
      const sg = await spawnHermes(['export', '--format', 'sharegpt', ...runs.map((r) => r.id)], { env });
      expect(sg.code, sg.stderr).toBe(0);
      const shared = lines(sg.stdout) as ShareGptRecord[];
      expect(shared).toHaveLength(3);
      shared.forEach((rec, i) => {
        checkShareGpt(rec);
        expect(rec.conversations[1]).toEqual({ from: 'human', value: prompts[i] });
        expect(rec.conversations.at(-1)).toEqual({ from: 'gpt', value: `<think>\n</think>\n${runs[i]!.result.answer}` });
        expect(rec.completed).toBe(true);
      });
      const calls = shared[2]!.conversations.filter((t) => t.from === 'gpt' && t.value.includes('<tool_call>'));
      expect(calls[0]!.value).toBe(
        '<think>\n</think>\n<tool_call>\n{"name": "list_dir", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n</tool_call>',
      );
      const results = shared[2]!.conversations.find((t) => t.from === 'tool')!.value.split('\n</tool_response>');
      expect(results.filter((r) => r.trim())).toHaveLength(2);

      // list: a waiting conversation besides the three.
      const waiting = await harness.hermes.start({ prompt: 'ask me', tools: ['clarify'] });
      await stateWhen(waiting, (s) => s.waitingFor === 'clarify');
      await waitFor('the waiting run in visibility', async () => {
        const n = await harness.client.workflow.count(`TaskQueue = "${harness.taskQueue}" AND HermesStatus = "waiting"`);
        return n.count === 1;
      });
      const all = await spawnHermes(['list', '--json'], { env });
      expect(all.code, all.stderr).toBe(0);
      const rows = JSON.parse(all.stdout) as ConversationRow[];
      expect(rows.map((r) => r.id)).toEqual([waiting.id, ...runs.map((r) => r.id).reverse()]); // newest first
      for (const r of runs) {
        expect(rows.find((x) => x.id === r.id)).toMatchObject({
          status: 'completed',
          temporalStatus: 'COMPLETED',
          model: 'default',
          iterations: r.result.iterations,
          tokens: r.result.usage.totalTokens,
          waitingFor: null,
        });
      }
      expect(rows.find((x) => x.id === runs[0]!.id)!.prompt).toBe('read the notes');
      // Running: tokens are not in visibility, so unknown rather than 0.
      expect(rows[0]).toMatchObject({ status: 'waiting', waitingFor: 'clarify', tokens: null, prompt: 'ask me', closedAt: null });

      const onlyWaiting = JSON.parse((await spawnHermes(['list', '--status', 'waiting', '--json'], { env })).stdout) as ConversationRow[];
      expect(onlyWaiting.map((r) => r.id)).toEqual([waiting.id]);
      const two = JSON.parse((await spawnHermes(['list', '--limit', '2', '--json'], { env })).stdout) as ConversationRow[];
      expect(two.map((r) => r.id)).toEqual([waiting.id, runs[2]!.id]);
      const queried = JSON.parse(
        (await spawnHermes(['list', '--query', `WorkflowId = "${runs[0]!.id}"`, '--json'], { env })).stdout,
      ) as ConversationRow[];
      expect(queried.map((r) => r.id)).toEqual([runs[0]!.id]);
      const table = await spawnHermes(['list'], { env });
      expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+MODEL\s+ITER\s+TOKENS\s+WAITING\s+AGE\s+PROMPT$/);
      expect(table.stdout).toMatch(new RegExp(`^${waiting.id}\\s+waiting\\s+default\\s+\\d+\\s+\\?\\s+clarify\\s+\\d+s\\s+ask me$`, 'm'));

      // A running conversation named explicitly is skipped, said so.
      const skip = await spawnHermes(['export', waiting.id], { env });
      expect(skip.stdout).toBe('');
      expect(skip.stderr).toContain(`skipped ${waiting.id}: ${waiting.id} is still running`);
      await waiting.cancel();
      await waiting.result();
    });
  }, 120_000);
});

/** The upstream agent's trajectory shape: system first, then human, gpt and tool turns, tool calls as JSON in tags. */
function checkShareGpt(rec: ShareGptRecord): void {
  expect(Object.keys(rec)).toEqual(expect.arrayContaining(['conversations', 'timestamp', 'model', 'completed']));
  const turns = rec.conversations;
  expect(turns[0]!.from).toBe('system');
  expect(turns[0]!.value).toMatch(/<tools>\n\[.*\]\n<\/tools>/s);
  turns.forEach((t, i) => {
    expect(['system', 'human', 'gpt', 'tool']).toContain(t.from);
    expect(typeof t.value).toBe('string');
    if (t.from === 'gpt') expect(t.value.startsWith('<think>\n')).toBe(true);
    if (t.from === 'tool') {
      const prev = turns[i - 1]!;
      expect(prev.from).toBe('gpt');
      const asked = [...prev.value.matchAll(/<tool_call>\n(.*?)\n<\/tool_call>/gs)].map(
        (m) => JSON.parse(m[1]!) as { name: string; arguments: object },
      );
      const answered = [...t.value.matchAll(/<tool_response>\n(.*?)\n<\/tool_response>/gs)].map(
        (m) => JSON.parse(m[1]!) as { name: string; tool_call_id: string },
      );
      expect(answered.map((a) => a.name)).toEqual(asked.map((a) => a.name));
      for (const a of asked) expect(typeof a.arguments).toBe('object');
    }
  });
}
