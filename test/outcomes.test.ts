// What the history itself says happened, read with the stock CLI as a person without our tools would: an
// approval that timed out or was denied, an interrupt and a retried model call each leave a row with a summary
// in `temporal workflow show`; the state query numbers model steps as the history does; a failed conversation
// is a FAILED workflow.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { temporal as temporal_ } from '@temporalio/proto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { stateWhen, waitFor } from './helpers/wait';

const exec = promisify(execFile);
const temporal = (...args: string[]) => exec(inject('temporalCliPath'), [...args, '--address', inject('temporalAddress')]);
let h: Harness;
afterEach(async () => {
  await h?.close();
});

/**
 * `temporal workflow show --detailed`: what a person sees of the history without our tools (the table view of CLI
 * 1.9 prints no summaries for any event; the Web UI's compact view shows them).
 */
async function shown(id: string): Promise<string> {
  return (await temporal('workflow', 'show', '--workflow-id', id, '--detailed')).stdout;
}

/** Summaries of the history's activities, timers and markers, decoded from `temporal workflow show -o json`. */
async function summaries(id: string): Promise<string[]> {
  const history = JSON.parse((await temporal('workflow', 'show', '--workflow-id', id, '--output', 'json')).stdout) as {
    events: Array<{ userMetadata?: { summary?: { data?: string } } }>;
  };
  return history.events.flatMap((e) => {
    const data = e.userMetadata?.summary?.data;
    return data ? [JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as string] : [];
  });
}

describe('outcomes in the history', () => {
  it('an approval timeout and a denial each leave a summarised row that names the command and says it did not run', async () => {
    h = await createHarness([
      toolCall('terminal', { command: 'rm -rf build' }, 'rm1'),
      answer('Removed the build directory.'),
      toolCall('terminal', { command: 'rm -rf dist' }, 'rm2'),
      answer('Removed dist.'),
    ]);
    await h.run(async () => {
      const timedOut = await h.hermes.start({ prompt: 'clean build', approvalTimeoutSec: 1 });
      await timedOut.result();
      const denied = await h.hermes.start({ prompt: 'clean dist' });
      await stateWhen(denied, (s) => s.pendingApprovals.length > 0);
      await denied.approve('rm2', 'deny');
      await denied.result();

      const first = await summaries(timedOut.id);
      // The timer says which command waits, the trace what became of it.
      expect(first).toContain('waiting for approval of terminal `rm -rf build` (recursive rm)');
      expect(first).toContain('approval timed out after 1 s: terminal `rm -rf build` was denied and did not run');
      expect(await summaries(denied.id)).toContain('approval denied: terminal `rm -rf dist` did not run');
      expect(await shown(timedOut.id)).toContain('userMetadata.summary: approval timed out after 1 s');
      // Its cost: one marker event in a workflow task that runs anyway (measured in protobuf bytes).
      const history = await h.client.workflow.getHandle(timedOut.id).fetchHistory();
      const summaryOf = (e: temporal_.api.history.v1.IHistoryEvent) => Buffer.from(e.userMetadata?.summary?.data ?? []).toString('utf8');
      const marker = history.events!.find((e) => e.markerRecordedEventAttributes && summaryOf(e).includes('timed out'));
      const bytes = temporal_.api.history.v1.HistoryEvent.encode(marker!).finish().length;
      console.log(`outcome trace: ${bytes} bytes of history`);
      expect(bytes).toBeLessThan(600);
    });
    expect(existsSync(path.join(h.workspace, 'build'))).toBe(false);
  });

  it('an interrupt names the call it cut short; the state numbers model steps as the history does', async () => {
    h = await createHarness([
      toolCall('read_file', { path: 'missing.txt' }, 'r1'),
      toolCall('terminal', { command: 'touch started; sleep 30' }, 't1'),
      answer('unused'),
    ]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'wait a while' });
      await waitFor('the command to start', () => existsSync(path.join(h.workspace, 'started')));
      await handle.interrupt({ reason: 'taking too long' });
      const result = await handle.result();
      expect(result.status).toBe('interrupted');
      const rows = await summaries(handle.id);
      expect(rows).toContain('interrupted (taking too long); terminal touch started; sleep 30 was cut short: the turn ended');
      // Model steps in history: "model step 1", "model step 2"; the state's model records carry the same numbers.
      expect(rows.filter((r) => r.startsWith('model step'))).toEqual(['model step 1', 'model step 2']);
      const state = await handle.state({ stepsAfter: 0 });
      const models = state.steps.filter((s) => s.kind === 'model').map((s) => s.modelStep);
      expect(models).toEqual([1, 2]);
      // Tool records belong to the step that asked for them.
      expect(state.steps.find((s) => s.kind === 'tool' && s.name === 'read_file')?.modelStep).toBe(1);
      // Tool activities carry their own retry policy, not the model's non-retryable failure types.
      const events = (await h.client.workflow.getHandle(handle.id).fetchHistory()).events ?? [];
      const toolRetries = events.flatMap((e) => {
        const a = e.activityTaskScheduledEventAttributes;
        return a?.activityType?.name === 'runTool' ? [a.retryPolicy?.nonRetryableErrorTypes ?? []] : [];
      });
      expect(toolRetries).toEqual([[], []]);
      // Without a cursor: the last 5, and stepsMissed counts the ones before them.
      const recent = await handle.state();
      expect(recent.stepsMissed).toBe(Math.max(0, state.steps.length - 5));
      expect(recent.steps[0]!.step).toBe(recent.stepsMissed + 1);
    });
  });

  it('a model call that succeeded on a retry says how many attempts and why the earlier ones failed', async () => {
    h = await createHarness([{ status: 503, body: { error: { message: 'overloaded' } } }, { status: 503 }, answer('third time')]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'go' });
      expect((await handle.result()).answer).toBe('third time');
      const trace = (await summaries(handle.id)).find((s) => s.includes('succeeded on attempt'));
      expect(trace).toMatch(
        /^model step 1 succeeded on attempt 3 after 2 failed: ModelUnavailable \(answered 503: 503 overloaded\), ModelUnavailable \(answered 503/,
      );
    });
  });

  it('a failed conversation is a FAILED workflow with the reason as its failure type, listed by ExecutionStatus', async () => {
    h = await createHarness([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'go' });
      expect(await handle.result()).toMatchObject({ status: 'failed', reason: 'ModelAuth', iterations: 1 });
      const list = await waitFor('the failed run in visibility', async () => {
        const out = (await temporal('workflow', 'list', '--query', `WorkflowId = "${handle.id}" AND ExecutionStatus = "Failed"`)).stdout;
        return out.includes(handle.id) ? out : undefined;
      });
      expect(list).toMatch(/Failed/);
      const described = JSON.parse((await temporal('workflow', 'describe', '--workflow-id', handle.id, '--output', 'json')).stdout) as {
        closeEvent?: {
          workflowExecutionFailedEventAttributes?: { failure?: { applicationFailureInfo?: { type?: string; nonRetryable?: boolean } } };
        };
      };
      const failure = described.closeEvent?.workflowExecutionFailedEventAttributes?.failure;
      expect(failure?.applicationFailureInfo).toMatchObject({ type: 'ModelAuth', nonRetryable: true });
    });
  });
});
