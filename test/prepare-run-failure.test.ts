// A run's start asks its worker one local activity (prepareRun: the workspace and sandbox checks, the catalog's
// tools, the system prompt's parts). When that activity fails as a whole — every attempt throws, as when a disk or
// the worker's state is broken — what the run asked for decides the outcome (src/workflows/loop/prepare.ts): a
// workspace that could not be checked refuses the run (BadInput), a sandbox that could not be checked too
// (SandboxUnavailable), and without either the run goes on with the built-in tools and the prompt's stable parts and says why. Never a
// wedged workflow, never a model call with a workspace nobody checked.
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationResult } from '../src/shared/contract';
import { answer, createHarness, type Harness } from './helpers/harness';

/** Every attempt of the start's local activity throws (counted per workflow); everything else runs as usual. */
const attempts = new Map<string, number>();
class BrokenStart implements ActivityInboundCallsInterceptor {
  constructor(private readonly info: { activityType: string; workflowExecution?: { workflowId: string } }) {}
  execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (this.info.activityType !== 'prepareRun') return next(input);
    const id = this.info.workflowExecution?.workflowId ?? '?';
    attempts.set(id, (attempts.get(id) ?? 0) + 1);
    return Promise.reject(new Error('the disk is on fire'));
  }
}

let h: Harness;
const ran: Record<'workspace' | 'sandbox' | 'plain', { id: string; result: ConversationResult; notes: string[] }> = {} as never;
// The three runs at once on one worker: each waits out the local activity's retries (1 s, then 2 s).
beforeAll(async () => {
  h = await createHarness([answer('fine without them')]);
  const starts = { workspace: { workspace: h.workspace }, sandbox: { sandbox: 'bwrap' as const }, plain: {} };
  await h.run(
    () =>
      Promise.all(
        Object.entries(starts).map(async ([k, o]) => {
          const handle = await h.hermes.start({ prompt: 'hi', ...o });
          const result = await handle.result();
          const notes = (await handle.state({ stepsAfter: 0 })).steps.filter((s) => s.kind === 'note').map((s) => s.summary);
          ran[k as keyof typeof ran] = { id: handle.id, result, notes };
        }),
      ),
    { tuning: { interceptors: { activity: [(ctx) => ({ inbound: new BrokenStart(ctx.info) })] } } },
  );
});
afterAll(() => h?.close());

describe('the start local activity failing as a whole', () => {
  it('refuses a run with a workspace it could not check, after the retries, without a model call', () => {
    const { id, result } = ran.workspace;
    expect(result).toMatchObject({ status: 'failed', reason: 'BadInput', modelCalls: 0 });
    expect(result.error).toBe(`workspace ${h.workspace} could not be checked: the disk is on fire`);
    // The local activity's retry policy (three attempts) ran its course before the run was refused.
    expect(attempts.get(id)).toBe(3);
  });

  it('refuses a run that asks for the sandbox it could not check', () => {
    expect(ran.sandbox.result).toMatchObject({ status: 'failed', reason: 'SandboxUnavailable', modelCalls: 0 });
    expect(ran.sandbox.result.error).toBe('the sandbox could not be checked: the disk is on fire');
  });

  it('runs a plain run on the built-in tools and the stable prompt parts, and says why', () => {
    expect(ran.plain.result).toMatchObject({ status: 'completed', answer: 'fine without them', modelCalls: 1 });
    expect(ran.plain.notes).toEqual([
      'the worker could not list its custom tools (the disk is on fire): only the built-in tools are offered',
      "the worker could not gather the system prompt's parts (the disk is on fire): no project context or memory",
    ]);
    // The only model call is the plain run's, and it still had a system prompt: the bundle's stable parts.
    expect(h.mock.requests).toHaveLength(1);
    const system = h.mock.requests[0]!.body.messages[0];
    expect(system.role).toBe('system');
    expect(String(system.content).length).toBeGreaterThan(200);
  });
});
