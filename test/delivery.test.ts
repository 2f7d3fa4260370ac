// Webhook delivery of a scheduled run's result (issue 9, "Results arrive, or you learn why not"): a real
// Temporal server and worker, a scripted model, and a local HTTP receiver. The conversation starts an abandoned
// `deliveryWorkflow` child and completes at once; the child POSTs the result under a retry policy.
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliverActivities, type WebhookDelivery } from '../src/activities/deliver';
import { loadWebhookPolicy } from '../src/schedules/webhook-policy';
import type { ConversationResult } from '../src/shared/contract';
import { HermesSchedule } from '../src/shared/search-attributes';
import { isNothingToReport } from '../src/workflows/delivery';
import { answer, createHarness, type Harness } from './helpers/harness';
import type { Reply } from './helpers/mock-model';
import { waitFor } from './helpers/wait';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: any;
  /** What the receiver answered. */
  status: number;
}

interface Receiver {
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

/** An HTTP receiver answering its n-th request with statuses[n] (the last one from then on). */
async function startReceiver(statuses: Array<number | { status: number; headers?: Record<string, string> }> = [200]): Promise<Receiver> {
  const requests: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const planned = statuses[Math.min(requests.length, statuses.length - 1)]!;
      const { status, headers } = typeof planned === 'number' ? { status: planned, headers: {} } : planned;
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      requests.push({ headers: req.headers, body, status });
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(status >= 300 ? `receiver says ${status}` : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook/secret-path`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL nobody listens on: a port that was free a moment ago. */
async function closedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

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
): Promise<WorkflowHandle> {
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
    const { id, result, outcome, summary, parent, attribute } = await runAllowingLoopback(async () => {
      const handle = await startScheduled(h!, rec.url, 'nightly');
      const result = (await handle.result()) as ConversationResult;
      const delivery = h!.client.workflow.getHandle(`${handle.workflowId}-delivery`);
      const outcome: unknown = await delivery.result();
      const desc = await delivery.describe();
      // A duplicate would arrive right after the first: there is none.
      await new Promise((r) => setTimeout(r, 300));
      return {
        id: handle.workflowId,
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
    expect(req!.headers['idempotency-key']).toBe(`${id}-delivery`);
    expect(req!.body).toEqual({
      schedule: 'nightly',
      workflowId: id,
      status: 'completed',
      answer: 'all green',
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    const started = Date.parse(req!.body.startedAt);
    const finished = Date.parse(req!.body.finishedAt);
    expect(new Date(started).toISOString()).toBe(req!.body.startedAt);
    expect(started).toBeGreaterThanOrEqual(t0 - 1_000);
    expect(finished).toBeGreaterThanOrEqual(started);
    expect(finished).toBeLessThanOrEqual(Date.now());

    // The model was told it runs unattended and how to say there is nothing to report.
    const system = h.mock.requests[0]!.messages[0].content as string;
    expect(system).toContain('scheduled task "nightly"');
    expect(system).toContain('NOTHING_TO_REPORT');
  }, 30_000);

  it('retries a 500 and delivers once the receiver accepts, with the same idempotency key', async () => {
    h = await createHarness([answer('report')]);
    const rec = (receiver = await startReceiver([500, 200]));
    const { id, outcome } = await runAllowingLoopback(async () => {
      const handle = await startScheduled(h!, rec.url);
      await handle.result();
      return { id: handle.workflowId, outcome: (await h!.client.workflow.getHandle(`${handle.workflowId}-delivery`).result()) as unknown };
    });
    expect(outcome).toEqual({ delivered: true, attempts: 2, status: 200 });
    expect(rec.requests.map((r) => r.status)).toEqual([500, 200]);
    expect(rec.requests.map((r) => r.headers['idempotency-key'])).toEqual([`${id}-delivery`, `${id}-delivery`]);
    expect(rec.requests[1]!.body).toEqual(rec.requests[0]!.body);
  }, 30_000);

  it('a receiver that is down does not change the run: it completes at once, the delivery keeps retrying', async () => {
    h = await createHarness([answer('report'), answer('report again')]);
    const url = await closedUrl();
    await runAllowingLoopback(async () => {
      const t0 = Date.now();
      const handle = await startScheduled(h!, url);
      const result = (await handle.result()) as ConversationResult;
      const took = Date.now() - t0;
      const delivery = h!.client.workflow.getHandle(`${handle.workflowId}-delivery`);
      try {
        expect(result.status).toBe('completed');
        expect(result.answer).toBe('report');
        expect(result.delivery).toEqual({ workflowId: delivery.workflowId });
        expect(took).toBeLessThan(5_000);
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

describe('the deliverWebhook activity', () => {
  const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  const body = { schedule: 't', workflowId: 'w', status: 'completed' as const, answer: 'a', startedAt: 'x', finishedAt: 'y' };
  const delivery = (webhook: string): WebhookDelivery => ({ webhook, idempotencyKey: 'w-delivery', body });
  const run = (d: WebhookDelivery, deps: Parameters<typeof createDeliverActivities>[0] = {}) =>
    new MockActivityEnvironment({ attempt: 3 }, { logger: quiet }).run(createDeliverActivities({ policy: LOOPBACK, ...deps }).deliverWebhook, d);
  const failure = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  };

  it('reports the status and the attempt that got through', async () => {
    const rec = (receiver = await startReceiver([204]));
    expect(await run(delivery(rec.url))).toEqual({ status: 204, attempt: 3 });
  });

  it('408, 429 and 5xx are retried; 429 waits for Retry-After, capped at 5 minutes', async () => {
    const rec = (receiver = await startReceiver([
      503,
      408,
      { status: 429, headers: { 'retry-after': '7' } },
      { status: 429, headers: { 'retry-after': '86400' } },
      429,
    ]));
    const f503 = await failure(run(delivery(rec.url)));
    expect(f503).toMatchObject({ type: 'WebhookUnavailable', nonRetryable: false });
    expect(f503.message).toContain('answered 503: receiver says 503');
    expect(await failure(run(delivery(rec.url)))).toMatchObject({ type: 'WebhookUnavailable', nonRetryable: false });
    expect(await failure(run(delivery(rec.url)))).toMatchObject({ type: 'WebhookRateLimited', nonRetryable: false, nextRetryDelay: 7_000 });
    expect(await failure(run(delivery(rec.url)))).toMatchObject({ type: 'WebhookRateLimited', nextRetryDelay: 300_000 });
    const plain = await failure(run(delivery(rec.url)));
    expect(plain.nextRetryDelay).toBeUndefined();
  });

  it('other 4xx and redirects are not retried, and a redirect is not followed', async () => {
    const rec = (receiver = await startReceiver([404, { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }]));
    expect(await failure(run(delivery(rec.url)))).toMatchObject({ type: 'WebhookRejected', nonRetryable: true });
    const redirect = await failure(run(delivery(rec.url)));
    expect(redirect).toMatchObject({ type: 'WebhookRejected', nonRetryable: true });
    expect(redirect.message).toContain('redirect');
    expect(rec.requests).toHaveLength(2);
  });

  it('a receiver that does not answer in time is retried', async () => {
    const server = http.createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const f = await failure(run(delivery(url), { timeoutMs: 200 }));
      expect(f).toMatchObject({ type: 'WebhookUnavailable', nonRetryable: false });
      expect(f.message).toContain('no answer within 0.2 s');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a network error is retried and names no secret URL', async () => {
    const url = await closedUrl();
    const f = await failure(run(delivery('$HOOK'), { env: { HOOK: url } }));
    expect(f).toMatchObject({ type: 'WebhookUnavailable', nonRetryable: false });
    expect(f.message).toBe('cannot deliver to webhook $HOOK: ECONNREFUSED');
  });

  it('bad webhooks fail at once, naming the problem', async () => {
    const cases: Array<[string, RegExp]> = [
      ['$NOPE', /no variable NOPE/],
      ['$1X', /\$ and a name/],
      ['ftp://example.com/x', /only http and https URLs are accepted, not ftp:/],
      ['not a url', /not a URL/],
    ];
    for (const [webhook, why] of cases) {
      const f = await failure(run(delivery(webhook), { env: {} }));
      expect(f).toMatchObject({ type: 'WebhookConfig', nonRetryable: true });
      expect(f.message).toMatch(why);
    }
    const f = await failure(run(delivery('$BAD'), { env: { BAD: 'file:///etc/passwd' } }));
    expect(f.message).toBe('webhook $BAD: only http and https URLs are accepted, not file:');
  });

  it('refuses loopback, private and link-local addresses unless the policy allows them, before sending anything', async () => {
    const rec = (receiver = await startReceiver([200]));
    const port = new URL(rec.url).port;
    const strict = { policy: {} };
    const cases: Array<[string, string]> = [
      [
        'http://169.254.169.254/latest/meta-data/',
        'cannot deliver to webhook http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a link-local address; webhooks are not delivered to ' +
          'loopback, private and link-local addresses unless the worker allows them (HERMES_WEBHOOK_ALLOW_PRIVATE=1, or the host in ' +
          "HERMES_WEBHOOK_ALLOW_HOSTS / the config file's schedules.webhookAllowHosts)",
      ],
      [rec.url, `cannot deliver to webhook ${rec.url}: 127.0.0.1 is a loopback address; webhooks are not delivered to`],
      [`http://localhost:${port}/hook`, `cannot deliver to webhook http://localhost:${port}/hook: localhost resolves to`],
      [`http://[::ffff:127.0.0.1]:${port}/hook`, 'is a loopback address'],
      ['http://[ff02::1]/hook', 'is a multicast address; webhooks are delivered to unicast addresses only'],
    ];
    for (const [webhook, message] of cases) {
      const f = await failure(run(delivery(webhook), strict));
      expect(f, webhook).toMatchObject({ type: 'WebhookRefused', nonRetryable: true });
      expect(f.message, webhook).toContain(message);
    }
    // A $NAME webhook is refused without naming its host (the message enters the history).
    const secret = await failure(run(delivery('$HOOK'), { ...strict, env: { HOOK: rec.url } }));
    expect(secret.message).toMatch(/^cannot deliver to webhook \$HOOK: its host is a loopback address; webhooks are not delivered/);
    expect(secret.message).not.toContain('127.0.0.1');
    expect(rec.requests).toHaveLength(0);
    // Allowed by the policy (the worker's HERMES_WEBHOOK_ALLOW_PRIVATE=1 or the host listed): delivered.
    expect(await run(delivery(rec.url), { policy: { allowPrivate: true } })).toEqual({ status: 200, attempt: 3 });
    expect(rec.requests).toHaveLength(1);
  });

  it('checks the address it connects to: a name is resolved once, in the socket’s lookup', async () => {
    const rec = (receiver = await startReceiver([200]));
    const port = new URL(rec.url).port;
    const lookups: string[] = [];
    const to =
      (...addresses: string[]) =>
      async (host: string) => {
        lookups.push(host);
        return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      };
    const hook = `http://hooks.example.test:${port}/hook`;
    const refused = await failure(run(delivery(hook), { policy: {}, resolve: to('127.0.0.1') }));
    expect(refused).toMatchObject({ type: 'WebhookRefused', nonRetryable: true });
    expect(refused.message).toContain('hooks.example.test resolves to 127.0.0.1, a loopback address');
    // One private address among public ones is enough to refuse, whichever the socket would pick.
    const mixed = await failure(run(delivery(hook), { policy: {}, resolve: to('93.184.216.34', '127.0.0.1') }));
    expect(mixed.message).toContain('resolves to 127.0.0.1');
    expect(rec.requests).toHaveLength(0);
    // Allowed by name: the request goes to the address the lookup checked.
    expect(await run(delivery(hook), { policy: { allowHosts: ['hooks.example.test'] }, resolve: to('127.0.0.1') })).toEqual({
      status: 200,
      attempt: 3,
    });
    expect(rec.requests).toHaveLength(1);
    expect(rec.requests[0]!.headers.host).toBe(`hooks.example.test:${port}`);
    expect(lookups).toEqual(['hooks.example.test', 'hooks.example.test', 'hooks.example.test']);
  });

  it('reads the policy from HERMES_WEBHOOK_ALLOW_PRIVATE, HERMES_WEBHOOK_ALLOW_HOSTS and the config file, apart from web_fetch’s', () => {
    const none = { HERMES_CONFIG: '/nonexistent/hermes.config.json' };
    expect(loadWebhookPolicy(none)).toEqual({ allowPrivate: false, allowHosts: [] });
    expect(loadWebhookPolicy({ ...none, HERMES_WEB_ALLOW_PRIVATE: '1', HERMES_WEB_ALLOW_HOSTS: '10.0.0.0/8' })).toEqual({
      allowPrivate: false,
      allowHosts: [],
    });
    expect(loadWebhookPolicy({ ...none, HERMES_WEBHOOK_ALLOW_PRIVATE: '1', HERMES_WEBHOOK_ALLOW_HOSTS: 'hooks.lan, 10.0.0.0/8' })).toEqual({
      allowPrivate: true,
      allowHosts: ['hooks.lan', '10.0.0.0/8'],
    });
    expect(() => loadWebhookPolicy({ ...none, HERMES_WEBHOOK_ALLOW_HOSTS: 'http://x/' })).toThrow(/HERMES_WEBHOOK_ALLOW_HOSTS: "http:\/\/x\/"/);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-webhook-policy-'));
    const file = path.join(dir, 'hermes.config.json');
    writeFileSync(file, JSON.stringify({ schedules: { webhookAllowHosts: ['*.corp.example'], webhookAllowPrivate: false } }));
    expect(loadWebhookPolicy({ HERMES_CONFIG: file, HERMES_WEBHOOK_ALLOW_HOSTS: '192.168.0.0/16' })).toEqual({
      allowPrivate: false,
      allowHosts: ['*.corp.example', '192.168.0.0/16'],
    });
  });

  it('recognises "nothing to report"', () => {
    for (const a of [
      'NOTHING_TO_REPORT',
      '  NOTHING_TO_REPORT\n',
      '`NOTHING_TO_REPORT`',
      'NOTHING_TO_REPORT.',
      '```NOTHING_TO_REPORT```',
      '`NOTHING_TO_REPORT`.',
    ]) {
      expect(isNothingToReport(a), a).toBe(true);
    }
    for (const a of ['', 'nothing_to_report', 'NOTHING_TO_REPORT today', 'Result: NOTHING_TO_REPORT', '`NOTHING_TO_REPORT']) {
      expect(isNothingToReport(a), a).toBe(false);
    }
  });
});
