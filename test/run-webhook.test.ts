// The `webhook` start option of any conversation (issue 20, point 4): a real Temporal server and worker, the
// scripted model and a local HTTP receiver. The run (or each chat turn) hands its result to the schedule's
// delivery machinery (src/workflows/delivery.ts): an abandoned `deliveryWorkflow` child under its retry policy.
// Scheduled runs' webhooks: delivery.test.ts; the activity alone: deliver-webhook.test.ts.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationResult } from '../src/shared/contract';
import { answer, createHarness, type Harness } from './helpers/harness';
import { historyText } from './helpers/history-text';
import type { Reply } from './helpers/mock-model';
import { deliveredBody, expectTimes, startReceiver, type Receiver } from './helpers/receiver';

let h: Harness | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  await h?.close();
  h = undefined;
});

// The receivers listen on 127.0.0.1: the worker (webhookPolicy) and this process (start()'s check, read from
// the environment as a CLI's would be) must both allow it.
const ALLOW = 'HERMES_WEBHOOK_ALLOW_HOSTS';
let allowBefore: string | undefined;
beforeAll(() => {
  allowBefore = process.env[ALLOW];
  process.env[ALLOW] = '127.0.0.1';
});
afterAll(() => {
  if (allowBefore === undefined) delete process.env[ALLOW];
  else process.env[ALLOW] = allowBefore;
});
const LOOPBACK = { allowHosts: ['127.0.0.1'] };
const run = <T>(fn: () => Promise<T>) => h!.run(fn, { webhookPolicy: LOOPBACK });

/** Waits for a delivery workflow's outcome: its result, or the failure it ended with. */
const outcomeOf = (id: string): Promise<unknown> =>
  h!.client.workflow
    .getHandle(id)
    .result()
    .catch((e: unknown) => e);

describe('the webhook start option', () => {
  it('POSTs the final result once, with ids, session, usage, times, latency and the idempotency key', async () => {
    h = await createHarness([answer('all done')]);
    const rec = (receiver = await startReceiver([200]));
    const t0 = Date.now();
    const { id, firstRunId, result, outcome } = await run(async () => {
      const handle = await h!.hermes.start({ prompt: 'do it', webhook: rec.url, sessionId: 'user-42:chat.1' });
      const result = await handle.result();
      const outcome = await outcomeOf(`${handle.id}-delivery`);
      // A duplicate would arrive right after the first: there is none.
      await new Promise((r) => setTimeout(r, 300));
      const desc = await handle.workflow.describe();
      return { id: handle.id, firstRunId: desc.runId, result, outcome };
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'all done', delivery: { workflowId: `${id}-delivery` } });
    expect(outcome).toEqual({ delivered: true, attempts: 1, status: 200 });
    expect(rec.requests).toHaveLength(1);
    const [req] = rec.requests;
    const key = `${id}-delivery:${firstRunId}`;
    expect(req!.headers['idempotency-key']).toBe(key);
    expect(req!.body).toEqual(
      deliveredBody(
        {
          conversationId: id,
          workflowId: id,
          sessionId: 'user-42:chat.1',
          runId: firstRunId,
          status: 'completed',
          answer: 'all done',
          usage: result.usage,
          iterations: 1,
        },
        key,
      ),
    );
    expectTimes(req!.body, t0);
    expect(result.usage.totalTokens).toBeGreaterThan(0);
  }, 30_000);

  it('retries a 500 and then delivers once, with the same idempotency key and body', async () => {
    h = await createHarness([answer('report')]);
    const rec = (receiver = await startReceiver([500, 200]));
    const outcome = await run(async () => {
      const handle = await h!.hermes.start({ prompt: 'report', webhook: rec.url });
      await handle.result();
      return outcomeOf(`${handle.id}-delivery`);
    });
    expect(outcome).toEqual({ delivered: true, attempts: 2, status: 200 });
    expect(rec.requests.map((r) => r.status)).toEqual([500, 200]);
    const keys = rec.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe(keys[1]);
    expect(rec.requests[1]!.body).toEqual(rec.requests[0]!.body);
    expect(rec.requests[0]!.body.sessionId).toBeNull();
  }, 30_000);

  it('a 4xx is not retried: the delivery fails with it, the run completes regardless', async () => {
    h = await createHarness([answer('report')]);
    const rec = (receiver = await startReceiver([404, 200]));
    const { result, failed } = await run(async () => {
      const handle = await h!.hermes.start({ prompt: 'report', webhook: rec.url });
      const result = await handle.result();
      return { result, failed: await outcomeOf(`${handle.id}-delivery`) };
    });
    expect(result.status).toBe('completed');
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    const cause = (failed as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('WebhookRejected');
    expect(cause.message).toMatch(/^not delivered \(not retryable\): .* answered 404: receiver says 404/);
    await new Promise((r) => setTimeout(r, 300));
    expect(rec.requests).toHaveLength(1);
  }, 30_000);

  it('a failed run is delivered with its reason and error', async () => {
    h = await createHarness([{ status: 401 } satisfies Reply]);
    const rec = (receiver = await startReceiver([200]));
    const result = await run(async () => {
      const handle = await h!.hermes.start({ prompt: 'x', webhook: rec.url });
      const r = await handle.result();
      await outcomeOf(`${handle.id}-delivery`);
      return r;
    });
    expect(result.status).toBe('failed');
    expect(rec.requests).toHaveLength(1);
    expect(rec.requests[0]!.body).toMatchObject({ status: 'failed', reason: 'ModelAuth', answer: '', error: expect.any(String) });
  }, 30_000);

  it('a cancelled run is delivered as cancelled', async () => {
    h = await createHarness([{ content: 'too late', delayMs: 20_000 }]);
    const rec = (receiver = await startReceiver([200]));
    const status = await run(async () => {
      const handle = await h!.hermes.start({ prompt: 'slow', webhook: rec.url });
      await h!.mock.waitForRequest(1);
      await handle.cancel();
      const closed = await handle.workflow.result().catch((e: unknown) => e);
      expect(closed).toBeInstanceOf(WorkflowFailedError);
      await outcomeOf(`${handle.id}-delivery`);
      return (await handle.workflow.describe()).status.name;
    });
    expect(status).toBe('CANCELLED');
    expect(rec.requests).toHaveLength(1);
    expect(rec.requests[0]!.body).toMatchObject({ status: 'cancelled', answer: '', iterations: 1 });
  }, 40_000);

  it('a chat delivers every finished turn, with its number', async () => {
    h = await createHarness([answer('one'), answer('two')]);
    const rec = (receiver = await startReceiver([200]));
    const { id, turns, outcomes } = await run(async () => {
      const handle = await h!.hermes.start({ mode: 'chat', webhook: rec.url, sessionId: 's1' });
      const turns = [await handle.send('first'), await handle.send('second')];
      await handle.end();
      await handle.result();
      const outcomes = await Promise.all([1, 2].map((n) => outcomeOf(`${handle.id}-turn${n}-delivery`)));
      return { id: handle.id, turns, outcomes };
    });
    expect(turns.map((t) => t.delivery)).toEqual([{ workflowId: `${id}-turn1-delivery` }, { workflowId: `${id}-turn2-delivery` }]);
    expect(outcomes).toEqual([1, 2].map(() => ({ delivered: true, attempts: 1, status: 200 })));
    const bodies = rec.requests.map((r) => r.body).sort((a, b) => a.turn - b.turn);
    expect(bodies).toMatchObject([
      { turn: 1, answer: 'one', status: 'completed', sessionId: 's1', iterations: 1 },
      { turn: 2, answer: 'two', status: 'completed', sessionId: 's1', iterations: 1 },
    ]);
    expect(new Set(rec.requests.map((r) => r.headers['idempotency-key'])).size).toBe(2);
    expect(Date.parse(bodies[1].startedAt)).toBeGreaterThanOrEqual(Date.parse(bodies[0].finishedAt));
  }, 30_000);

  it('$NAME resolves on the worker: neither the URL nor its host enters a history', async () => {
    h = await createHarness([answer('report')]);
    const rec = (receiver = await startReceiver([200]));
    const name = `HERMES_TEST_RUN_WEBHOOK_${process.pid}`;
    process.env[name] = rec.url;
    try {
      const text = await run(async () => {
        const handle = await h!.hermes.start({ prompt: 'report', webhook: `$${name}` });
        await handle.result();
        await outcomeOf(`${handle.id}-delivery`);
        const histories = [await handle.workflow.fetchHistory(), await h!.client.workflow.getHandle(`${handle.id}-delivery`).fetchHistory()];
        return histories.map((x) => historyText(x)).join('\n');
      });
      expect(rec.requests).toHaveLength(1);
      expect(text).toContain(`$${name}`);
      expect(text).not.toContain('secret-path');
      expect(text).not.toContain(new URL(rec.url).host);
    } finally {
      delete process.env[name];
    }
  }, 30_000);
});

describe('a bad webhook or session id', () => {
  it('from the stock path (raw workflow input) fails as BadInput naming the field, and starts no delivery', async () => {
    h = await createHarness([]);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ webhook: 'ftp://example.com/x' }, /webhook: webhook ftp:\/\/example\.com\/x: only http and https/],
      [{ webhook: 'not a url' }, /webhook: webhook not a url is not a URL/],
      [{ webhook: '$no-such' }, /webhook: webhook "\$no-such": an environment variable reference is \$ and a name/],
      [
        { webhook: 'https://example.com/a', schedule: { name: 't', webhook: 'https://example.com/b' } },
        /webhook: a scheduled run delivers to schedule\.webhook/,
      ],
      [{ sessionId: 'a b/c' }, /sessionId: use letters, digits/],
      [{ sessionId: 'x'.repeat(201) }, /sessionId: /],
    ];
    const results = await run(() =>
      Promise.all(
        cases.map(async ([extra], i) => {
          const handle = await h!.client.workflow.start('conversationWorkflow', {
            args: [{ prompt: 'hi', ...extra }],
            taskQueue: h!.taskQueue,
            workflowId: `bad-webhook-${process.pid}-${Date.now()}-${i}`,
          });
          return h!.hermes.get(handle.workflowId).result();
        }),
      ),
    );
    results.forEach((r: ConversationResult, i) => {
      expect(r.status).toBe('failed');
      expect(r.reason).toBe('BadInput');
      expect(r.error).toMatch(cases[i]![1]);
      expect(r.delivery).toBeUndefined();
    });
    h.mock.assertDone();
  }, 30_000);

  it('start() refuses them before anything is started', async () => {
    h = await createHarness([]);
    await expect(h.hermes.start({ prompt: 'x', webhook: 'mailto:me@example.com' })).rejects.toThrow(
      /invalid start options: webhook: .*only http and https/,
    );
    await expect(h.hermes.start({ prompt: 'x', sessionId: 'bad id' })).rejects.toThrow(/invalid start options: sessionId: /);
    // A URL with a user name or password: refused at the start, without the password in the message.
    const cred = await h.hermes.start({ prompt: 'x', webhook: 'https://user:hunter2@example.com/hook' }).then(
      () => 'started',
      (e: Error) => e.message,
    );
    expect(cred).toMatch(/invalid start options: webhook: webhook https:\/\/…@example\.com: a URL with a user name or password .* is refused/);
    expect(cred).not.toContain('hunter2');
    // A literal address this process's webhook policy refuses (without DNS: an IP literal, localhost).
    await expect(h.hermes.start({ prompt: 'x', webhook: 'http://10.1.2.3/hook' })).rejects.toThrow(/10\.1\.2\.3 is a private address/);
  });
});
