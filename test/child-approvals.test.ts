// Approvals a sub-agent asks for surface in its parent when the run allows children to ask
// (delegation.childApprovals): the parent's `state` lists them (marked with the child's id and goal), and
// `approve` on the parent passes the decision down to the child. Real dev server, scripted model, real commands.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { ConversationResult, ConversationState, PendingApproval } from '../src/shared/contract';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { routed } from './helpers/routed-model';
import { cleanEnv, HERMES_BIN, spawnHermes } from './helpers/spawn-hermes';
import { stateWhen, waitFor } from './helpers/wait';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const asking = { sandbox: 'none' as const, delegation: { childApprovals: true } };

/** A parent that delegates one task whose first step is `command` (call id `callId`), then answers. */
function oneChild(parentKey: string, goal: string, command: string, callId: string, childAnswer = 'child done') {
  return routed({
    [parentKey]: [toolCall('delegate_task', { goal }, 'd1'), answer('parent done')],
    [goal]: [toolCall('terminal', { command }, callId), answer(childAnswer)],
  });
}

const pendingIn = (s: ConversationState, callId: string): PendingApproval | undefined => s.pendingApprovals.find((a) => a.callId === callId);

async function childResult(harness: Harness, id: string): Promise<ConversationResult> {
  return (await harness.client.workflow.getHandle(id).result()) as ConversationResult;
}

describe("a sub-agent's approvals in its parent", () => {
  it("surface in the parent's state while the child waits; approve on the parent runs the command in the child; a bad call id is rejected", async () => {
    const goal = 'clean the scratch dir';
    const r = oneChild('surface parent', goal, 'rm -rf scratch && echo ran > ran.txt', 't1');
    h = await createHarness(r.script);
    const harness = h;
    const out = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'surface parent run', workspace: harness.workspace, ...asking });
      const s = await stateWhen(handle, (x) => Boolean(pendingIn(x, 't1')), 10_000);
      const seenAt = Date.now();
      // From the model's reply asking for the command to the parent listing it.
      const askedAt = r.requests[goal]![0]!.at;
      const bad = await handle.approve('nope').catch((e: Error) => e);
      const childId = pendingIn(s, 't1')!.child!.workflowId;
      const childState = await harness.hermes.get(childId).state();
      const ok = await handle.approve('t1', 'approve');
      const result = await handle.result();
      const after = await handle.state();
      return { s, surfacedMs: seenAt - askedAt, bad, childId, childState, ok, result, after };
    });
    console.log(`[child approvals] the child's approval surfaced in the parent's state ${out.surfacedMs} ms after the model asked for the command`);
    const a = pendingIn(out.s, 't1')!;
    expect(a).toMatchObject({ tool: 'terminal', command: 'rm -rf scratch && echo ran > ran.txt', child: { workflowId: out.childId, goal } });
    expect(out.childId).toMatch(/-agent1-d1-1$/);
    // The parent itself is not waiting: its child is (and says so in its own state).
    expect(out.s.status).toBe('running');
    expect(out.s.children![0]!.status).toBe('waiting');
    expect(out.childState.pendingApprovals.map((x) => x.callId)).toEqual(['t1']);
    expect(out.s.steps.some((x) => x.summary.includes(`${out.childId} waits for approval`) && x.summary.includes('hermes approve'))).toBe(true);

    expect(out.bad).toBeInstanceOf(Error);
    expect((out.bad as Error).message).toBe(`no pending approval for call "nope" (pending: t1 (sub-agent ${out.childId}))`);

    expect(out.ok).toEqual({ callId: 't1', decision: 'approve', workflowId: out.childId });
    expect(out.result.status).toBe('completed');
    expect(out.after.pendingApprovals).toEqual([]);
    expect(existsSync(path.join(harness.workspace, 'ran.txt'))).toBe(true);
    expect(toolResult(r.requests[goal]![1]!.messages, 't1')).not.toMatch(/^Error/);
    expect((await childResult(harness, out.childId)).status).toBe('completed');
    h.mock.assertDone();
  }, 60_000);

  it('hermes approve PARENT CALL_ID --deny refuses it in the child; hermes status PARENT lists it', async () => {
    const goal = 'remove the build dir';
    const r = oneChild('deny parent', goal, 'rm -rf build && echo ran > ran.txt', 't2', 'left it');
    h = await createHarness(r.script);
    const harness = h;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue, HERMES_WORKSPACE: h.workspace };
    const out = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'deny parent run', workspace: harness.workspace, ...asking });
      const s = await stateWhen(handle, (x) => Boolean(pendingIn(x, 't2')), 10_000);
      const status = await spawnHermes(['status', handle.id], { env });
      const deny = await spawnHermes(['approve', handle.id, 't2', '--deny'], { env });
      return { s, status, deny, result: await handle.result(), id: handle.id };
    });
    const childId = pendingIn(out.s, 't2')!.child!.workflowId;
    expect(out.status.code, out.status.stderr).toBe(0);
    expect(out.status.stdout).toContain(`approval t2 (sub-agent ${childId}: ${goal}): terminal rm -rf build && echo ran > ran.txt`);
    expect(out.status.stdout).toContain(`waiting for an approval: hermes approve ${out.id} CALL_ID`);
    expect(out.deny.code, out.deny.stderr).toBe(0);
    expect(out.deny.stderr).toContain(`denied t2 (passed on to the sub-agent ${childId})`);
    expect(out.result.status).toBe('completed');
    expect(toolResult(r.requests[goal]![1]!.messages, 't2')).toMatch(/^Error: the user denied this command/);
    expect(existsSync(path.join(harness.workspace, 'ran.txt'))).toBe(false);
    h.mock.assertDone();
  }, 60_000);

  it('the approval timeout still applies: the child denies it, the parent stops listing it, and a late approve is rejected', async () => {
    const goal = 'wipe the cache dir';
    const r = oneChild('timeout parent', goal, 'rm -rf cache', 't3', 'no approval');
    h = await createHarness(r.script);
    const harness = h;
    const out = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'timeout parent run', approvalTimeoutSec: 2, ...asking });
      await stateWhen(handle, (x) => Boolean(pendingIn(x, 't3')), 10_000);
      // Gone once the child's approval timer fired (its tool result below says so), not on a stopwatch.
      await stateWhen(handle, (x) => !pendingIn(x, 't3'), 30_000);
      const late = await handle.approve('t3').catch((e: Error) => e);
      return { late, result: await handle.result() };
    });
    expect((out.late as Error).message).toBe('no approval is pending');
    expect(out.result.status).toBe('completed');
    expect(toolResult(r.requests[goal]![1]!.messages, 't3')).toMatch(/^Error: no approval came within 2 s, so the command was denied/);
    h.mock.assertDone();
  }, 60_000);

  it("a grandchild's approval is forwarded up to the top and the decision routed down to it", async () => {
    const r = routed({
      'top of three': [toolCall('delegate_task', { goal: 'middle agent' }, 'd1'), answer('top done')],
      'middle agent': [toolCall('delegate_task', { goal: 'bottom agent' }, 'd2'), answer('middle done')],
      'bottom agent': [toolCall('terminal', { command: 'rm -rf deep && echo deep > deep.txt' }, 't4'), answer('bottom done')],
    });
    h = await createHarness(r.script);
    const harness = h;
    const out = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'top of three', workspace: harness.workspace, ...asking });
      const s = await stateWhen(handle, (x) => Boolean(pendingIn(x, 't4')), 15_000);
      const middleId = s.children![0]!.workflowId;
      const middle = await harness.hermes.get(middleId).state();
      const ok = await handle.approve('t4');
      return { s, middleId, middle, ok, result: await handle.result(), after: await handle.state() };
    });
    const a = pendingIn(out.s, 't4')!;
    expect(a.child!.goal).toBe('bottom agent');
    expect(a.child!.workflowId).toBe(`${out.middleId}-agent1-d2-1`);
    // The middle one lists it too (so `hermes approve MIDDLE t4` would work as well).
    expect(pendingIn(out.middle, 't4')?.child?.workflowId).toBe(a.child!.workflowId);
    expect(out.ok.workflowId).toBe(a.child!.workflowId);
    expect(out.result.status).toBe('completed');
    expect(out.after.pendingApprovals).toEqual([]);
    expect(existsSync(path.join(harness.workspace, 'deep.txt'))).toBe(true);
    h.mock.assertDone();
  }, 60_000);

  it('interrupting the parent settles it: the child ends interrupted and the parent no longer lists the approval', async () => {
    const r = routed({
      'interrupt parent': [toolCall('delegate_task', { goal: 'drop the tables' }, 'd1')],
      'drop the tables': [toolCall('terminal', { command: 'rm -rf tables' }, 't5')],
    });
    h = await createHarness(r.script);
    const harness = h;
    const out = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'interrupt parent run', ...asking });
      const s = await stateWhen(handle, (x) => Boolean(pendingIn(x, 't5')), 10_000);
      await handle.interrupt({ reason: 'enough' });
      const result = await handle.result();
      return { s, result, after: await handle.state() };
    });
    expect(out.result.status).toBe('interrupted');
    expect(out.after.pendingApprovals).toEqual([]);
    const child = await childResult(harness, pendingIn(out.s, 't5')!.child!.workflowId);
    expect(child.status).toBe('interrupted');
  }, 60_000);

  it('cancelling the parent settles it too: the child is cancelled and the parent no longer lists the approval', async () => {
    const r = routed({
      'cancel parent': [toolCall('delegate_task', { goal: 'purge the logs' }, 'd1')],
      'purge the logs': [toolCall('terminal', { command: 'rm -rf logs' }, 't8')],
    });
    h = await createHarness(r.script);
    const harness = h;
    const out = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'cancel parent run', ...asking });
      const s = await stateWhen(handle, (x) => Boolean(pendingIn(x, 't8')), 10_000);
      await handle.cancel();
      await expect(harness.client.workflow.getHandle(handle.id).result()).rejects.toThrow();
      return { s, after: await handle.state() };
    });
    expect(out.after.status).toBe('cancelled');
    expect(out.after.pendingApprovals).toEqual([]);
    const d = await harness.client.workflow.getHandle(pendingIn(out.s, 't8')!.child!.workflowId).describe();
    expect(d.status.name).toBe('CANCELLED');
  }, 60_000);

  it('two sub-agents asking with the same call id: approve on the parent needs the workflowId, and each goes to its own child', async () => {
    const r = routed({
      'twin parent': [toolCall('delegate_task', { tasks: [{ goal: 'twin one' }, { goal: 'twin two' }] }, 'd1'), answer('twins done')],
      'twin one': [toolCall('terminal', { command: 'rm -rf one && echo 1 > one.txt' }, 'same'), answer('one done')],
      'twin two': [toolCall('terminal', { command: 'rm -rf two && echo 2 > two.txt' }, 'same'), answer('two done')],
    });
    h = await createHarness(r.script);
    const harness = h;
    const out = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'twin parent run', workspace: harness.workspace, ...asking });
      const s = await stateWhen(handle, (x) => x.pendingApprovals.filter((a) => a.callId === 'same').length === 2, 10_000);
      const [one, two] = s.pendingApprovals.map((a) => a.child!.workflowId).sort();
      const ambiguous = await handle.approve('same').catch((e: Error) => e);
      const a1 = await handle.approve('same', 'approve', false, one);
      const a2 = await handle.approve('same', 'deny', false, two);
      return { one, two, ambiguous, a1, a2, result: await handle.result() };
    });
    expect((out.ambiguous as Error).message).toMatch(
      /^call "same" is pending in \S+ and \S+: decide it where it is pending, e\.g\. hermes approve \S+-agent1-d1-[12] same$/,
    );
    expect(out.a1.workflowId).toBe(out.one);
    expect(out.a2.workflowId).toBe(out.two);
    expect(out.result.status).toBe('completed');
    expect(existsSync(path.join(harness.workspace, 'one.txt'))).toBe(true);
    expect(existsSync(path.join(harness.workspace, 'two.txt'))).toBe(false);
    expect(toolResult(r.requests['twin two']![1]!.messages, 'same')).toMatch(/^Error: the user denied this command/);
    h.mock.assertDone();
  }, 60_000);

  it('hermes run on the parent asks it inline, like its own approvals', async () => {
    const goal = 'tidy the tmp dir';
    const r = oneChild('inline parent', goal, 'rm -rf tmpdir && echo inline > inline.txt', 't6');
    h = await createHarness(r.script);
    const harness = h;
    const env = cleanEnv({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue, HERMES_WORKSPACE: h.workspace });
    // A terminal (pty) for `hermes run`, as a person has: script(1) runs it on one and relays our answer.
    const run = await h.run(
      () =>
        new Promise<{ code: number | null; out: string }>((resolve, reject) => {
          const cmd = `node ${HERMES_BIN} run --sandbox none "inline parent run" --child-approvals`;
          const p = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
          let out = '';
          let answered = false;
          const timer = setTimeout(() => p.kill('SIGKILL'), 45_000);
          const onData = (d: Buffer) => {
            out += d.toString();
            if (!answered && /wants to run: .*\r?\n.*approve\? \[y\]es/.test(out)) {
              answered = true;
              p.stdin.write('y\r');
            }
          };
          p.stdout.on('data', onData);
          p.stderr.on('data', onData);
          p.on('error', reject);
          p.on('close', (code) => {
            clearTimeout(timer);
            resolve({ code, out });
          });
        }),
    );
    expect(run.out).toMatch(
      new RegExp(`! sub-agent \\S+-agent1-d1-1 \\(${goal}\\): terminal wants to run: rm -rf tmpdir && echo inline > inline.txt`),
    );
    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain('parent done');
    expect(existsSync(path.join(harness.workspace, 'inline.txt'))).toBe(true);
    await waitFor('the child result', () => r.left()[goal] === 0);
    h.mock.assertDone();
  }, 90_000);
});
