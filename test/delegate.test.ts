// Sub-agents (delegate_task) against the real dev server: each task is a child conversation workflow; the
// scripted model answers each conversation from its own queue (test/helpers/routed-model.ts).
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { Payload } from '@temporalio/common';
import type { ConversationInput, ConversationResult } from '../src/shared/contract';
import { decodeStoredValue } from '../src/storage/decode';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import type { Reply } from './helpers/mock-model';
import { routed } from './helpers/routed-model';
import { spawnHermes } from './helpers/spawn-hermes';
import { processesWith, sleepMarker, sleepsWith } from './helpers/procs';
import { stateWhen, waitFor } from './helpers/wait';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const usage = (prompt_tokens: number, completion_tokens: number) => ({ usage: { prompt_tokens, completion_tokens } });

/** The ids of the workflows a parent started, as the server's visibility lists them (optionally only running ones). */
async function childIds(harness: Harness, parentId: string, runningOnly = false): Promise<string[]> {
  const ids: string[] = [];
  const query = `ParentWorkflowId = "${parentId}"${runningOnly ? ' AND ExecutionStatus = "Running"' : ''}`;
  for await (const w of harness.client.workflow.list({ query })) ids.push(w.workflowId);
  return ids.sort();
}

async function childResult(harness: Harness, id: string): Promise<ConversationResult> {
  return (await harness.client.workflow.getHandle(id).result()) as ConversationResult;
}

describe('delegate_task', () => {
  it('runs three sub-agents concurrently as child workflows; one tool result has every summary; usage rolls up', async () => {
    const tasks = ['alpha task', 'beta task', 'gamma task'].map((goal) => ({ goal }));
    // Each child answers only once the test has seen all three running and asking at the same time.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const child = (name: string): Reply[] => [() => released.then(() => ({ content: `${name} summary: found 42`, ...usage(100, 20) }))];
    const r = routed({
      'delegate three': [
        { toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { tasks, context: 'shared facts' } }], ...usage(10, 5) },
        { content: 'all three done', ...usage(30, 5) },
      ],
      'alpha task': child('alpha'),
      'beta task': child('beta'),
      'gamma task': child('gamma'),
    });
    h = await createHarness(r.script);
    const harness = h;
    const { result, running, state, id } = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'delegate three things', id: `delegate-3-${Date.now()}` });
      // While the children wait for their answers, the server lists all three running under the parent, and all
      // three have asked the model: they run concurrently (one at a time, the second would never ask).
      const running = await waitFor('three running children', async () => {
        const ids = await childIds(harness, handle.id, true);
        return ids.length === 3 ? ids : undefined;
      });
      const state = await stateWhen(handle, (s) => (s.children ?? []).filter((c) => c.status === 'running').length === 3);
      await waitFor('all three children to ask the model', () => ['alpha task', 'beta task', 'gamma task'].every((k) => r.requests[k]!.length > 0));
      release();
      return { result: await handle.result(), running, state, id: handle.id };
    });

    expect(result.status, JSON.stringify(result)).toBe('completed');
    expect(result.answer).toBe('all three done');
    const expected = [1, 2, 3].map((i) => `${id}-agent1-d1-${i}`);
    expect(running).toEqual(expected);
    expect(await childIds(harness, id)).toEqual(expected);
    expect(state.children!.map((c) => c.goal)).toEqual(['alpha task', 'beta task', 'gamma task']);

    // One tool result with every status and summary.
    const last = r.requests['delegate three']![1]!;
    const content = toolResult(last.messages, 'd1')!;
    expect(content).toMatch(/^3 sub-agent\(s\): 3 completed; 360 tokens in all\./);
    for (const name of ['alpha', 'beta', 'gamma']) expect(content).toContain(`${name} summary: found 42`);
    expect(content).toContain(`${id}-agent1-d1-2`);

    // The children's own conversations: a focused system prompt, the goal as the first message, no clarify,
    // no schedules; the shared context reached each.
    const childReq = r.requests['alpha task']![0]!;
    expect(childReq.messages[0].content).toContain('You are a sub-agent');
    expect(childReq.messages[0].content).toContain('shared facts');
    expect(childReq.tools).not.toContain('clarify');
    expect(childReq.tools).not.toContain('task_register');
    expect(childReq.tools).toContain('delegate_task'); // depth 1 of 2: it may delegate once more
    expect(r.requests['delegate three']![0]!.tools).toContain('delegate_task');

    // Parent usage = its own (15 + 35) + the children's (3 × 120).
    expect(result.usage.totalTokens).toBe(50 + 360);
    expect(result.modelCalls).toBe(2);
    for (const cid of expected) expect((await childResult(harness, cid)).status).toBe('completed');
    expect(r.left()).toEqual({ 'delegate three': 0, 'alpha task': 0, 'beta task': 0, 'gamma task': 0 });
    h.mock.assertDone();
  }, 60_000);

  it('runs at most three at once by default: the fourth starts only after one has finished', async () => {
    const tasks = ['t-one', 't-two', 't-three', 't-four'].map((goal) => ({ goal }));
    // Event order: t-one answers once the test has seen three children running and the fourth queued; t-two and
    // t-three answer only after t-four has asked, so the fourth must start while they still run.
    const order: string[] = [];
    let release!: () => void;
    const threeRunning = new Promise<void>((resolve) => (release = resolve));
    const r = routed({
      'four tasks': [toolCall('delegate_task', { tasks }, 'd1'), answer('four done')],
      't-one': [() => threeRunning.then(() => (order.push('t-one answered'), { content: 'one' }))],
      't-two': [() => fourthAsked().then(() => (order.push('t-two answered'), { content: 'two' }))],
      't-three': [() => fourthAsked().then(() => (order.push('t-three answered'), { content: 'three' }))],
      't-four': [() => (order.push('t-four asked'), { content: 'four' })],
    });
    const fourthAsked = () => waitFor('t-four to ask the model', () => r.requests['t-four']!.length > 0, 30_000);
    h = await createHarness(r.script);
    const harness = h;
    const { result, state } = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'four tasks please' });
      const state = await stateWhen(handle, (s) => (s.children ?? []).filter((c) => c.status === 'running').length === 3);
      await waitFor('the first three to ask the model', () => ['t-one', 't-two', 't-three'].every((k) => r.requests[k]!.length > 0));
      release();
      return { result: await handle.result(), state };
    });
    expect(result.status).toBe('completed');
    expect(state.children!.map((c) => [c.goal, c.status])).toEqual([
      ['t-one', 'running'],
      ['t-two', 'running'],
      ['t-three', 'running'],
      ['t-four', 'queued'],
    ]);
    expect(order.slice(0, 2)).toEqual(['t-one answered', 't-four asked']);
    expect(order.slice(2).sort()).toEqual(['t-three answered', 't-two answered']);
    const content = toolResult(r.requests['four tasks']![1]!.messages, 'd1')!;
    expect(content).toMatch(/^4 sub-agent\(s\): 4 completed/);
    h.mock.assertDone();
  }, 60_000);

  it('nests to the depth limit (2 by default); a deeper delegate_task gets an error result the model acts on', async () => {
    const r = routed({
      'top level': [toolCall('delegate_task', { goal: 'child level' }, 'd1'), answer('top done')],
      'child level': [toolCall('delegate_task', { goal: 'grandchild level' }, 'd2'), answer('child done')],
      'grandchild level': [toolCall('delegate_task', { goal: 'too deep' }, 'd3'), answer('did it myself')],
    });
    h = await createHarness(r.script);
    const harness = h;
    const result = await h.run(async () => (await harness.hermes.start({ prompt: 'top level work' })).result());
    expect(result.status).toBe('completed');
    expect(r.requests['child level']![0]!.tools).toContain('delegate_task');
    expect(r.requests['grandchild level']![0]!.tools).not.toContain('delegate_task');
    const refusal = toolResult(r.requests['grandchild level']![1]!.messages, 'd3')!;
    expect(refusal).toMatch(
      /^Error: delegate_task is not available: this sub-agent \(depth 2\) is at the delegation depth limit \(delegation\.maxDepth 2\)/,
    );
    expect(toolResult(r.requests['child level']![1]!.messages, 'd2')).toContain('did it myself');
    expect(toolResult(r.requests['top level']![1]!.messages, 'd1')).toContain('child done');
    // 3 conversations × 2 model calls × 15 tokens, all counted in the top one.
    expect(result.usage.totalTokens).toBe(90);
    h.mock.assertDone();

    // maxDepth 0 turns delegation off: the tool is not offered, and a call is refused the same way.
    const r2 = routed({ 'no delegation': [toolCall('delegate_task', { goal: 'x' }, 'e1'), answer('ok')] });
    h.mock.push(...r2.script);
    const off = await h.run(async () => (await harness.hermes.start({ prompt: 'no delegation here', delegation: { maxDepth: 0 } })).result());
    expect(off.status).toBe('completed');
    expect(r2.requests['no delegation']![0]!.tools).not.toContain('delegate_task');
    expect(toolResult(r2.requests['no delegation']![1]!.messages, 'e1')).toMatch(/^Error: delegate_task is not available: this conversation is at/);
  }, 60_000);

  it('reports a failed (401) and a budget-exhausted child; the sibling and the parent finish', async () => {
    const r = routed({
      'mixed bag': [
        toolCall('delegate_task', { tasks: [{ goal: 'fails auth' }, { goal: 'runs long' }, { goal: 'works fine' }] }, 'd1'),
        answer('reported'),
      ],
      'fails auth': [{ status: 401 }],
      // The parent has 3 iterations and used 1: the child gets 2, then its grace summary.
      'runs long': [toolCall('list_dir', {}), toolCall('list_dir', { depth: 2 }), answer('partial: listed twice')],
      'works fine': [answer('fine result')],
    });
    h = await createHarness(r.script);
    const harness = h;
    const result = await h.run(async () => (await harness.hermes.start({ prompt: 'mixed bag of tasks', maxIterations: 3 })).result());
    expect(result.status).toBe('completed');
    const content = toolResult(r.requests['mixed bag']![1]!.messages, 'd1')!;
    expect(content).toMatch(/^3 sub-agent\(s\): 1 failed, 1 budget_exhausted, 1 completed/);
    expect(content).toMatch(/\[1\] failed \(ModelAuth: .*\)/);
    expect(content).toMatch(/\[2\] budget_exhausted · .* · 3 model call\(s\)/);
    expect(content).toContain('partial: listed twice');
    expect(content).toContain('fine result');
    h.mock.assertDone();
  }, 60_000);

  it('interrupting the parent interrupts its running children: both end interrupted, their commands dead before the parent ends', async () => {
    const ws = () => h!.workspace;
    // Found by a marker in their command lines: in a pid namespace (the isolation launcher) `$$` is not a host pid.
    const markers = [sleepMarker(60), sleepMarker(60)] as const;
    const r = routed({
      'two sleepers': [toolCall('delegate_task', { tasks: [{ goal: 'sleeper A' }, { goal: 'sleeper B' }] }, 'd1')],
      'sleeper A': [toolCall('terminal', { command: `sleep ${markers[0]}` })],
      'sleeper B': [toolCall('terminal', { command: `sleep ${markers[1]}` })],
    });
    h = await createHarness(r.script);
    const harness = h;
    const { result, alive, stoppedMs, id } = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'two sleepers', workspace: ws(), sandbox: 'none' });
      await waitFor('both commands running', () => markers.every((m) => sleepsWith(m).length === 1));
      await new Promise((res) => setTimeout(res, 300));
      const t0 = Date.now();
      await handle.interrupt({ reason: 'enough' });
      const result = await handle.result();
      // Event order: the parent ends only once its children have, and they only once their commands are dead
      // (WAIT_CANCELLATION_COMPLETED), long before the 60 s sleeps would have ended on their own.
      const alive = markers.filter((m) => processesWith(m).length > 0);
      return { result, alive, stoppedMs: Date.now() - t0, id: handle.id };
    });
    console.log(`[delegate: interrupt] the parent ended ${stoppedMs} ms after its interrupt, both children's commands dead`);
    expect(alive).toEqual([]);
    expect(result.status).toBe('interrupted');
    const ids = await childIds(harness, id);
    expect(ids).toHaveLength(2);
    for (const cid of ids) {
      const cr = await childResult(harness, cid);
      expect(cr.status).toBe('interrupted');
      expect(cr.reason).toMatch(/the parent conversation was stopped by interrupt/);
    }
    h.mock.assertDone();
  }, 60_000);

  it("a parent's 2,000-token budget stops it and its children, whose spending counts as it happens", async () => {
    const big = usage(700, 100);
    const child = (n: string): Reply[] => [
      { toolCalls: [{ name: 'list_dir', arguments: {} }], ...big },
      { toolCalls: [{ name: 'list_dir', arguments: { depth: 2 } }], delayMs: 400, ...big },
      // Never answered: the parent cancels the child while it waits for this one.
      { content: `${n} never`, delayMs: 20_000 },
    ];
    const r = routed({
      'tight budget': [toolCall('delegate_task', { tasks: [{ goal: 'spender one' }, { goal: 'spender two' }] }, 'd1'), answer('budget summary')],
      'spender one': child('one'),
      'spender two': child('two'),
    });
    h = await createHarness(r.script);
    const harness = h;
    const { result, id } = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'tight budget run', maxTokens: 2_000 });
      return { result: await handle.result(), id: handle.id };
    });
    expect(result.status, JSON.stringify(result)).toBe('budget_exhausted');
    expect(result.answer).toBe('budget summary');
    // Each child was given what the parent had left (1,985 tokens) and would have spent more; the parent
    // stopped them when the sum passed 2,000: 15 (own) + at least 3 × 800 before the cancel.
    expect(result.usage.totalTokens).toBeGreaterThanOrEqual(15 + 3 * 800);
    const ids = await childIds(harness, id);
    expect(ids).toHaveLength(2);
    for (const cid of ids) {
      const d = await harness.client.workflow.getHandle(cid).describe();
      expect(d.status.name).toBe('CANCELLED');
    }
    const content = toolResult(r.requests['tight budget']![1]!.messages, 'd1')!;
    expect(content).toMatch(/^2 sub-agent\(s\): 2 cancelled/);
  }, 60_000);

  it('cancelling the parent cancels its children', async () => {
    const r = routed({
      'cancel me': [toolCall('delegate_task', { tasks: [{ goal: 'waiter one' }, { goal: 'waiter two' }] }, 'd1')],
      'waiter one': [{ content: 'never', delayMs: 30_000 }],
      'waiter two': [{ content: 'never', delayMs: 30_000 }],
    });
    h = await createHarness(r.script);
    const harness = h;
    const id = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'cancel me soon' });
      await waitFor('both children asking the model', () => r.requests['waiter one']!.length + r.requests['waiter two']!.length === 2);
      await harness.client.workflow.getHandle(handle.id).cancel();
      await expect(harness.client.workflow.getHandle(handle.id).result()).rejects.toThrow();
      return handle.id;
    });
    const ids = await childIds(harness, id);
    expect(ids).toHaveLength(2);
    for (const cid of ids) expect((await harness.client.workflow.getHandle(cid).describe()).status.name).toBe('CANCELLED');
    // Their model requests were aborted, not left running (the endpoint hears the close when it comes).
    await waitFor('both model requests aborted', () => ['waiter one', 'waiter two'].every((k) => r.requests[k]![0]!.aborted), 15_000);
  }, 60_000);

  it('hermes run shows sub-agents as indented lines; hermes status PARENT lists them; hermes inspect CHILD works', async () => {
    const r = routed({
      'cli parent': [toolCall('delegate_task', { tasks: [{ goal: 'cli child one' }, { goal: 'cli child two' }] }, 'd1'), answer('cli done')],
      'cli child one': [toolCall('list_dir', {}), answer('one ok')],
      'cli child two': [answer('two ok')],
    });
    h = await createHarness(r.script);
    const harness = h;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue, HERMES_WORKSPACE: h.workspace };
    const run = await h.run(() => spawnHermes(['run', 'cli parent work'], { env }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('cli done');
    const id = /workflow id: (\S+)/.exec(run.stderr)![1]!;
    const child1 = `${id}-agent1-d1-1`;
    expect(run.stderr).toMatch(new RegExp(`\\[\\s*\\d+\\]       ↳ started ${child1}: cli child one`));
    expect(run.stderr).toMatch(new RegExp(`\\[\\s*\\d+\\]       ↳ completed ${child1} \\(2 model calls, 30 tokens\\)`));
    expect(run.stderr).toMatch(/tool\s+delegate_task: 2 sub-agent\(s\): 2 completed; 45 tokens in all\./);

    const status = await h.run(() => spawnHermes(['status', id], { env }));
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('sub-agents (latest delegate_task, 0 still running):');
    expect(status.stdout).toContain(`  ↳ ${child1} [completed] iteration 2 · tokens 30 — cli child one`);
    expect(status.stdout).toContain(`  ↳ ${id}-agent1-d1-2 [completed] iteration 1 · tokens 15 — cli child two`);

    const inspect = await h.run(() => spawnHermes(['inspect', child1], { env }));
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout).toContain('list_dir');
    // Its static summary names the parent and the goal (the Web UI shows it).
    const d = await harness.client.workflow.getHandle(child1).describe();
    expect(await d.staticSummary()).toBe(`cli child one (sub-agent of ${id})`);
    h.mock.assertDone();
  }, 90_000);

  it('a command that needs approval is denied in a child by default; with childApprovals the child asks and its parent shows it waiting', async () => {
    const r = routed({
      'approvals parent': [toolCall('delegate_task', { goal: 'remove the scratch dir' }, 'd1'), answer('parent done')],
      'remove the scratch dir': [toolCall('terminal', { command: 'rm -rf scratch' }, 't1'), answer('could not remove it')],
    });
    h = await createHarness(r.script);
    const harness = h;
    const denied = await h.run(async () => (await harness.hermes.start({ prompt: 'approvals parent run', sandbox: 'none' })).result());
    expect(denied.status).toBe('completed');
    expect(toolResult(r.requests['remove the scratch dir']![1]!.messages, 't1')).toMatch(
      /needs approval .* this run cannot ask for it, so it did not run/,
    );

    const r2 = routed({
      'asking parent': [toolCall('delegate_task', { goal: 'remove the other dir' }, 'd2'), answer('parent done')],
      'remove the other dir': [toolCall('terminal', { command: 'rm -rf other' }, 't2'), answer('removed')],
    });
    h.mock.push(...r2.script);
    await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'asking parent run', sandbox: 'none', delegation: { childApprovals: true } });
      const s = await stateWhen(handle, (x) => x.children?.[0]?.status === 'waiting');
      const childId = s.children![0]!.workflowId;
      const child = harness.hermes.get(childId);
      const cs = await stateWhen(child, (x) => x.pendingApprovals.length === 1);
      expect(cs.pendingApprovals[0]!.command).toBe('rm -rf other');
      await child.approve(cs.pendingApprovals[0]!.callId, 'approve');
      expect((await handle.result()).status).toBe('completed');
    });
    expect(toolResult(r2.requests['remove the other dir']![1]!.messages, 't2')).not.toMatch(/^Error/);
    h.mock.assertDone();
  }, 60_000);
});

describe('delegate_task and the caller', () => {
  it("gives a child its parent's memory scope and skills store: it works for the same user", async () => {
    const r = routed({
      'delegate one': [toolCall('delegate_task', { goal: 'child chore' }, 'd1'), answer('done')],
      'child chore': [answer('chore done')],
    });
    h = await createHarness(r.script);
    const harness = h;
    const id = `delegate-scope-${Date.now()}`;
    await h.run(async () =>
      (await harness.hermes.start({ prompt: 'delegate one chore', id, memoryScope: 'team-x', skillsStore: 'team-x' })).result(),
    );
    const [cid] = await childIds(harness, id);
    const history = await harness.client.workflow.getHandle(cid!).fetchHistory();
    const payload = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const input = await decodeStoredValue<ConversationInput>(harness.client.options.loadedDataConverter, payload as Payload);
    expect(input).toMatchObject({ memoryScope: 'team-x', skillsStore: 'team-x', parent: { workflowId: id } });
  }, 60_000);
});
