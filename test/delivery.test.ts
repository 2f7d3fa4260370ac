// Webhook delivery of a scheduled run's result (issue 9, "Results arrive, or you learn why not"): a real
// Temporal server and worker, a scripted model, and a local HTTP receiver. The conversation starts an abandoned
// `deliveryWorkflow` child and completes at once; the child POSTs the result under a retry policy. The activity
// alone (what it retries, the address policy): deliver-webhook.test.ts.
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, WorkflowNotFoundError, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationResult } from '../src/shared/contract';
import { HermesSchedule } from '../src/shared/search-attributes';
import { answer, createHarness, type Harness } from './helpers/harness';
import { closedUrl, deliveredBody, expectTimes, startReceiver, type Receiver } from './helpers/receiver';
import type { Reply } from './helpers/mock-model';
import { waitFor } from './helpers/wait';

/** Every string and every payload's bytes in a history, as text (payloads are JSON bytes). */
function historyText(value: unknown, out: string[] = []): string[] {
  if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) historyText(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) historyText(v, out);
  return out;
}

let h: Harness | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  await h?.close();
  h = undefined;
});

/** The receivers here listen on 127.0.0.1, which the webhook policy refuses unless the worker allows it. */
const LOOPBACK = { allowHosts: ['127.0.0.1'] };
const runAllowingLoopback = <T>(fn: () => Promise<T>) => h!.run(fn, { webhookPolicy: LOOPBACK });

let n = 0;
/** Starts a scheduled task-mode conversation the way a Schedule does (the `schedule` field is not a start option). */
async function startScheduled(
  harness: Harness,
  webhook: string,
  name = 't',
  workflowId = `delivery-${process.pid}-${++n}-${Date.now()}`,
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  return harness.client.workflow.start('conversationWorkflow', {
    args: [{ prompt: 'summarise the night', scheduled: true, schedule: { name, webhook } }],
    taskQueue: harness.taskQueue,
    workflowId,
    // As a schedule's firing has it.
    typedSearchAttributes: [{ key: HermesSchedule, value: name }],
  });
}

describe('webhook delivery of a scheduled run', () => {
  it('delivers the result once, with the schedule, times and an idempotency key', async () => {
    h = await createHarness([answer('all green')]);
    const rec = (receiver = await startReceiver([200]));
    const t0 = Date.now();
    const { id, runId, result, outcome, summary, parent, attribute } = await runAllowingLoopback(async () => {
      const handle = await startScheduled(h!, rec.url, 'nightly');
      const result = (await handle.result()) as ConversationResult;
      const delivery = h!.client.workflow.getHandle(`${handle.workflowId}-delivery`);
      const outcome: unknown = await delivery.result();
      const desc = await delivery.describe();
      // A duplicate would arrive right after the first: there is none.
      await new Promise((r) => setTimeout(r, 300));
      return {
        id: handle.workflowId,
        runId: handle.firstExecutionRunId,
        result,
        outcome,
        summary: await desc.staticSummary(),
        parent: desc.parentExecution?.workflowId,
        attribute: desc.typedSearchAttributes.get(HermesSchedule),
      };
    });
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('all green');
    expect(result.delivery).toEqual({ workflowId: `${id}-delivery` });
    expect(outcome).toEqual({ delivered: true, attempts: 1, status: 200 });
    expect(summary).toContain('nightly');
    expect(parent).toBe(id);
    // Not a firing of the task: `hermes schedule runs` (HermesSchedule = name) does not list it.
    expect(attribute).toBeUndefined();

    expect(rec.requests).toHaveLength(1);
    const [req] = rec.requests;
    expect(req!.headers['content-type']).toBe('application/json');
    // The first run id tells apart two conversations that used one id.
    const key = `${id}-delivery:${runId}`;
    expect(req!.headers['idempotency-key']).toBe(key);
    expect(req!.body).toEqual(
      deliveredBody(
        {
          schedule: 'nightly',
          conversationId: id,
          workflowId: id,
          sessionId: null,
          runId,
          status: 'completed',
          answer: 'all green',
          usage: result.usage,
          iterations: 1,
        },
        key,
      ),
    );
    expectTimes(req!.body, t0);

    // The model was told it runs unattended and how to say there is nothing to report.
    const system = h.mock.requests[0]!.messages[0].content as string;
    expect(system).toContain('scheduled task "nightly"');
    expect(system).toContain('NOTHING_TO_REPORT');
  }, 30_000);

  it('retries a 500 and delivers once the receiver accepts, with the same idempotency key', async () => {
    h = await createHarness([answer('report')]);
    const rec = (receiver = await startReceiver([500, 200]));
    const { id, runId, outcome } = await runAllowingLoopback(async () => {
      const handle = await startScheduled(h!, rec.url);
      await handle.result();
      return {
        id: handle.workflowId,
        runId: handle.firstExecutionRunId,
        outcome: (await h!.client.workflow.getHandle(`${handle.workflowId}-delivery`).result()) as unknown,
      };
    });
    expect(outcome).toEqual({ delivered: true, attempts: 2, status: 200 });
    expect(rec.requests.map((r) => r.status)).toEqual([500, 200]);
    expect(rec.requests.map((r) => r.headers['idempotency-key'])).toEqual([`${id}-delivery:${runId}`, `${id}-delivery:${runId}`]);
    expect(rec.requests[1]!.body).toEqual(rec.requests[0]!.body);
  }, 30_000);

  it('a receiver that is down does not change the run: it completes at once, the delivery keeps retrying', async () => {
    h = await createHarness([answer('report'), answer('report again')]);
    const url = await closedUrl();
    await runAllowingLoopback(async () => {
      const handle = await startScheduled(h!, url);
      const result = (await handle.result()) as ConversationResult;
      const delivery = h!.client.workflow.getHandle(`${handle.workflowId}-delivery`);
      try {
        expect(result.status).toBe('completed');
        expect(result.answer).toBe('report');
        expect(result.delivery).toEqual({ workflowId: delivery.workflowId });
        // Event order: the run has its result while its delivery still retries (it never succeeds here; a run
        // that waited for it would never end).
        expect((await delivery.describe()).status.name).toBe('RUNNING');
        expect((await handle.describe()).status.name).toBe('COMPLETED');
        // The delivery workflow shows its failing attempts (Web UI: pending activity, attempt and last failure).
        const pending = await waitFor(
          'a failed delivery attempt',
          async () => {
            const desc = await delivery.describe();
            const p = desc.raw.pendingActivities?.[0];
            return desc.status.name === 'RUNNING' && p && (p.attempt ?? 0) >= 2 ? p : undefined;
          },
          15_000,
        );
        expect(pending.lastFailure?.message).toMatch(/cannot deliver to webhook http:\/\/127\.0\.0\.1:\d+\/hook: ECONNREFUSED/);
        expect(pending.lastFailure?.applicationFailureInfo?.type).toBe('WebhookUnavailable');

        // The conversation id used again while that delivery still retries: this run's delivery cannot start
        // under the same id, and its result says so instead of failing.
        const again = (await (await startScheduled(h!, url, 't', handle.workflowId)).result()) as ConversationResult;
        expect(again.status).toBe('completed');
        expect(again.delivery).toEqual({ workflowId: delivery.workflowId, error: expect.stringMatching(/could not be started: .*already started/i) });
      } finally {
        await delivery.terminate('test over').catch(() => undefined);
      }
    });
  }, 30_000);

  it('"nothing to report" delivers nothing', async () => {
    h = await createHarness([answer('`NOTHING_TO_REPORT`')]);
    const rec = (receiver = await startReceiver([200]));
    const { id, result } = await runAllowingLoopback(async () => {
      const handle = await startScheduled(h!, rec.url);
      return { id: handle.workflowId, result: (await handle.result()) as ConversationResult };
    });
    expect(result.status).toBe('completed');
    expect(result.delivery).toEqual({ skipped: 'nothing to report' });
    await new Promise((r) => setTimeout(r, 300));
    expect(rec.requests).toHaveLength(0);
    await expect(h.client.workflow.getHandle(`${id}-delivery`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  }, 30_000);

  it('a failed run is delivered too, with its reason', async () => {
    h = await createHarness([{ status: 401 } satisfies Reply]);
    const rec = (receiver = await startReceiver([200]));
    const result = await runAllowingLoopback(async () => {
      const handle = await startScheduled(h!, rec.url);
      // A FAILED workflow (the result rides in the failure): delivered before it failed.
      const r = await h!.hermes.get(handle.workflowId).result();
      expect((await handle.describe()).status.name).toBe('FAILED');
      await h!.client.workflow.getHandle(`${handle.workflowId}-delivery`).result();
      return r;
    });
    expect(result.status).toBe('failed');
    expect(rec.requests).toHaveLength(1);
    expect(rec.requests[0]!.body).toMatchObject({ status: 'failed', reason: 'ModelAuth', answer: '' });
  }, 30_000);

  it('$NAME takes the URL from the worker environment, which never enters the history', async () => {
    h = await createHarness([answer('report'), answer('second report')]);
    const rec = (receiver = await startReceiver([200]));
    const name = `HERMES_TEST_WEBHOOK_${process.pid}`;
    process.env[name] = rec.url;
    try {
      const { histories, missing } = await runAllowingLoopback(async () => {
        const handle = await startScheduled(h!, `$${name}`);
        await handle.result();
        const delivery = h!.client.workflow.getHandle(`${handle.workflowId}-delivery`);
        expect(await delivery.result()).toEqual({ delivered: true, attempts: 1, status: 200 });
        const histories = [await handle.fetchHistory(), await delivery.fetchHistory()];

        // A variable the worker does not have: a failed delivery naming it, after one attempt.
        const other = await startScheduled(h!, '$HERMES_TEST_NO_SUCH_HOOK');
        expect(((await other.result()) as ConversationResult).status).toBe('completed');
        const missing = await h!.client.workflow
          .getHandle(`${other.workflowId}-delivery`)
          .result()
          .catch((e: unknown) => e);
        return { histories, missing };
      });
      expect(rec.requests).toHaveLength(1);
      expect(rec.requests[0]!.body.answer).toBe('report');
      const text = histories.flatMap((x) => historyText(x)).join('\n');
      expect(text).toContain(`$${name}`);
      expect(text).toContain('"answer":"report"');
      expect(text).not.toContain('secret-path');
      expect(text).not.toContain(new URL(rec.url).host);

      expect(missing).toBeInstanceOf(WorkflowFailedError);
      const cause = (missing as WorkflowFailedError).cause;
      expect(cause?.message).toMatch(/not delivered \(not retryable\): .*no variable HERMES_TEST_NO_SUCH_HOOK/);
      expect((cause as ApplicationFailure).type).toBe('WebhookConfig');
    } finally {
      delete process.env[name];
    }
  }, 30_000);
});

describe('webhook delivery and the address policy', () => {
  it('a worker that does not allow loopback fails the delivery at once, and the run is not affected', async () => {
    h = await createHarness([answer('report')]);
    const rec = (receiver = await startReceiver([200]));
    const { result, failed } = await h.run(
      async () => {
        const handle = await startScheduled(h!, rec.url);
        const result = (await handle.result()) as ConversationResult;
        const failed = await h!.client.workflow
          .getHandle(`${handle.workflowId}-delivery`)
          .result()
          .catch((e: unknown) => e);
        return { result, failed };
      },
      { webhookPolicy: {} },
    );
    expect(result.status).toBe('completed');
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    const cause = (failed as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('WebhookRefused');
    expect(cause.message).toMatch(
      /^not delivered \(not retryable\): cannot deliver to webhook http:\/\/127\.0\.0\.1:\d+\/hook\/secret-path: 127\.0\.0\.1 is a loopback address/,
    );
    expect(rec.requests).toHaveLength(0);
  }, 30_000);
});
