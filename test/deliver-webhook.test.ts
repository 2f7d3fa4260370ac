// The deliverWebhook activity on its own (MockActivityEnvironment, a local HTTP receiver, no Temporal server): what
// it retries and what not, Retry-After, the address policy checked where it connects, and "nothing to report".
// A scheduled run delivering through the child workflow on a real server: delivery.test.ts.
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliverActivities, type WebhookDelivery } from '../src/activities/webhook-post';
import { loadWebhookPolicy } from '../src/schedules/webhook-policy';
import { isNothingToReport } from '../src/workflows/delivery';
import { closedUrl, startReceiver, type Receiver } from './helpers/receiver';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** The receivers here listen on 127.0.0.1, which the webhook policy refuses unless the worker allows it. */
const LOOPBACK = { allowHosts: ['127.0.0.1'] };

describe('the deliverWebhook activity', () => {
  const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2, costUsd: 0 };
  const body = {
    ...{ conversationId: 'w', workflowId: 'w', sessionId: null, runId: 'r', schedule: 't', status: 'completed' as const, answer: 'a' },
    ...{ usage, iterations: 1, startedAt: 'x', finishedAt: 'y', latencyMs: 1, idempotencyKey: 'w-delivery' },
  };
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
    // A URL with credentials cannot be sent: it fails at once (not retried), and the password is not in the message.
    const cred = await failure(run(delivery('$CRED'), { env: { CRED: 'https://user:hunter2@example.com/hook' } }));
    expect(cred).toMatchObject({ type: 'WebhookConfig', nonRetryable: true });
    expect(cred.message).toMatch(/^webhook \$CRED: a URL with a user name or password .* is refused/);
    expect(cred.message).not.toContain('hunter2');
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
