// What people outside the code see: HermesStatus (and HermesModel, HermesIterations) through the stock
// `temporal workflow list --query`, summaries on every activity and timer for the Web UI, the `context` query
// without arguments, and a model stuck on invalid tool calls stopped early.
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { stateWhen, waitFor } from './helpers/wait';

const exec = promisify(execFile);
const temporal = (...args: string[]) => exec(inject('temporalCliPath'), [...args, '--address', inject('temporalAddress')]);
let h: Harness;
afterEach(async () => {
  await h?.close();
  h = undefined!; // the next test makes its own
});

/** Waits until the stock CLI's visibility query finds the conversation (visibility is eventually consistent). */
async function listed(id: string, query: string) {
  return waitFor(`${id} with ${query}`, async () => {
    const out = (await temporal('workflow', 'list', '--query', `WorkflowId = "${id}" AND ${query}`, '--output', 'json')).stdout.trim();
    return out && out !== '[]' && out.includes(id) ? out : undefined;
  });
}

describe('HermesStatus through the stock CLI', () => {
  it('is running from the start, waiting while a question waits, then completed; model and iterations kept current', async () => {
    h = await createHarness([
      // The command runs until the test has seen "running" (event order, not a race against visibility's lag).
      toolCall('terminal', { command: 'touch started; until [ -e seen ]; do sleep 0.05; done' }, 't1'),
      toolCall('clarify', { question: 'Which database should I use?' }, 'q1'),
      answer('postgres it is'),
    ]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'set up the db' });
      await waitFor('the command to start', () => existsSync(path.join(h.workspace, 'started')));
      // Published at the start (iterations between status changes every 5 model steps).
      await listed(handle.id, 'HermesStatus = "running" AND HermesModel = "default" AND HermesIterations >= 0');
      writeFileSync(path.join(h.workspace, 'seen'), '');
      await stateWhen(handle, (s) => s.pendingQuestion !== null);
      await listed(handle.id, 'HermesStatus = "waiting" AND HermesWaitingFor = "clarify" AND HermesIterations = 2');
      await temporal('workflow', 'update', 'execute', '--workflow-id', handle.id, '--name', 'answer', '--input', '"postgres"');
      expect((await handle.result()).status).toBe('completed');
      await listed(handle.id, 'HermesStatus = "completed" AND HermesIterations = 3');

      // Every activity and timer of the finished run has a summary; the context query answers without arguments.
      const events = (await handle.workflow.fetchHistory()).events ?? [];
      const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes || e.timerStartedEventAttributes);
      expect(scheduled.length).toBeGreaterThanOrEqual(4);
      for (const e of scheduled) expect(e.userMetadata?.summary?.data?.length ?? 0, String(e.eventType)).toBeGreaterThan(0);
      const timer = scheduled.find((e) => e.timerStartedEventAttributes)!;
      expect(Buffer.from(timer.userMetadata!.summary!.data!).toString()).toContain('waiting for an answer: Which database should I use?');
      const q = await temporal('workflow', 'query', '--workflow-id', handle.id, '--type', 'context', '--output', 'json');
      expect(q.stdout).toContain('"count"');
      expect(q.stdout).toContain('set up the db');
    });
  });

  it('upserts progress every 5 model steps, however long a step takes, so a replay makes the same commands', async () => {
    // 12 tool steps then the answer: 13 model steps. Progress at iterations 5 and 10; status at the start and the end.
    h = await createHarness([
      ...Array.from({ length: 12 }, (_, i) => toolCall('list_dir', { path: '.', depth: (i % 3) + 1 }, `r${i}`)),
      answer('done'),
    ]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'look around' });
      expect((await handle.result()).status).toBe('completed');
      const events = (await handle.workflow.fetchHistory()).events ?? [];
      const iterations = events
        .map((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.HermesIterations?.data)
        .filter((d): d is Uint8Array => !!d)
        .map((d) => Number(Buffer.from(d).toString()));
      expect(iterations).toEqual([0, 5, 10, 13]);
    });
  });

  it('says how to answer in the current details while waiting', async () => {
    h = await createHarness([toolCall('terminal', { command: 'rm -rf build' }, 'rm1'), answer('ok')]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'clean' });
      await stateWhen(handle, (s) => s.pendingApprovals.length > 0);
      const shown = await temporal('workflow', 'metadata', '--workflow-id', handle.id);
      expect(shown.stdout).toContain(`hermes approve ${handle.id} rm1 [--deny]`);
      await handle.approve('rm1', 'deny');
      await handle.result();
    });
  });

  it('is cancelled after a Temporal cancel, and failed on a failure', async () => {
    h = await createHarness([toolCall('terminal', { command: 'touch started; sleep 30' }), { status: 401 }]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'wait' });
      await waitFor('the command to start', () => existsSync(path.join(h.workspace, 'started')));
      await temporal('workflow', 'cancel', '--workflow-id', handle.id);
      expect((await handle.result()).status).toBe('cancelled');
      await listed(handle.id, 'HermesStatus = "cancelled"');

      const failing = await h.hermes.start({ prompt: 'fail' });
      expect(await failing.result()).toMatchObject({ status: 'failed', reason: 'ModelAuth' });
      await listed(failing.id, 'HermesStatus = "failed"');
    });
  });
});

describe('runaway invalid calls', () => {
  it('stops a model that keeps calling a tool that does not exist after 5 in a row, with a grace answer', async () => {
    h = await createHarness([
      // Without the stop, the answer below would be read as the 6th step's answer and the run would complete.
      ...Array.from({ length: 5 }, (_, i) => toolCall('launch_rockets', { n: i }, `x${i}`)),
      answer('I kept calling a tool I do not have.'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result).toMatchObject({ status: 'stopped_repeating', reason: 'InvalidToolCalls', answer: 'I kept calling a tool I do not have.' });
    // 5 invalid steps, then the grace call (no tools offered).
    expect(h.mock.requests).toHaveLength(6);
    expect(h.mock.requests[5]!.tools ?? []).toEqual([]);
    expect(h.mock.requests[5]!.messages.at(-1)!.content).toMatch(/5 tool calls in a row could not run, the last one "launch_rockets"/);
  });

  it('says so when the final summary of the stop is empty: HermesStatus, the details and the summary memo', async () => {
    h = await createHarness([...Array.from({ length: 5 }, (_, i) => toolCall('launch_rockets', { n: i }, `x${i}`)), answer('')]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'go' });
      expect(await handle.result()).toMatchObject({ status: 'stopped_repeating', answer: '' });
      await listed(handle.id, 'HermesStatus = "stopped_repeating_no_answer"');
      const wf = h.client.workflow.getHandle(handle.id);
      const meta = await wf.query<{ currentDetails: string }>('__temporal_workflow_metadata');
      expect(meta.currentDetails).toMatch(/^\*\*stopped_repeating_no_answer\*\*/);
      expect(meta.currentDetails).toContain("no answer: the run stopped (InvalidToolCalls) and the model's final summary was empty");
      expect((await wf.describe()).memo?.hermesSummary).toBe('Q: go A: (no answer: stopped_repeating)');
    });
  });
});
