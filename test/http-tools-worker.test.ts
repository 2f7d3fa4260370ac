// Declarative HTTP tools (src/tools/http) on a worker: a 503 retried by a real Temporal activity retry policy, and
// the config file's httpTools in a conversation, with `hermes tools` listing them and their circuits from another
// process. The tools' own behaviour against a local HTTP server, without Temporal: http-tools.test.ts.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ExternalToolContext } from '../src/tools/catalog';
import { createHttpTools, type PublishedCircuits } from '../src/tools/http';
import { installRuntimeLogger } from '../src/observe/logger';
import { closeWorkerConnection } from '../src/startup/connection';
import { callToolWorkflow } from './fixtures/tool-retry-workflow';
import { answer, createHarness, toolCall, toolResult } from './helpers/harness';
import { spawnHermes } from './helpers/spawn-hermes';

installRuntimeLogger('ERROR');

const hits = new Map<string, number>();
let server: http.Server;
let base = '';

function reply(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

// The first request to a /flaky path answers 503, the next ones 200 with the attempt number.
beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const p = new URL(req.url ?? '', 'http://x').pathname;
      hits.set(p, (hits.get(p) ?? 0) + 1);
      if (hits.get(p) === 1) reply(res, 503, 'try later', { 'retry-after': '0' });
      else reply(res, 200, { ok: true, attempt: hits.get(p) });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function ctx(): ExternalToolContext {
  return {
    workspace: os.tmpdir(),
    resolvePath: async (p) => p,
    signal: new AbortController().signal,
    heartbeat: () => undefined,
    log: () => undefined,
    callId: 'call-1',
  };
}

describe('HTTP tools under Temporal', () => {
  it('a 503 is retried by the activity retry policy and the second attempt succeeds', async () => {
    const address = inject('temporalAddress');
    const connection = await NativeConnection.connect({ address });
    const clientConnection = await Connection.connect({ address });
    const client = new Client({ connection: clientConnection });
    const taskQueue = `http-tools-${process.pid}-${Date.now().toString(36)}`;
    const [flaky] = createHttpTools([{ name: 'flaky', description: 'x', endpoint: `${base}/flaky-temporal` }], {});
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowsPath: path.join(__dirname, 'fixtures/tool-retry-workflow.ts'),
      activities: {
        async callTool(name: string, args: Record<string, unknown>) {
          expect(name).toBe('flaky');
          return flaky!.run(args, ctx());
        },
      },
    });
    try {
      const workflowId = `http-retry-${Date.now().toString(36)}`;
      const result = await worker.runUntil(client.workflow.execute(callToolWorkflow, { taskQueue, workflowId, args: ['flaky', {}] }));
      expect(JSON.parse(result)).toEqual({ ok: true, attempt: 2 });
      expect(hits.get('/flaky-temporal')).toBe(2);
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      const started = history.events!.find((e) => e.activityTaskStartedEventAttributes)!.activityTaskStartedEventAttributes!;
      expect(started.attempt).toBe(2);
      expect(started.lastFailure?.message).toContain('HTTP 503');
      expect(started.lastFailure?.applicationFailureInfo?.type).toBe('HttpToolUnavailable');
    } finally {
      await closeWorkerConnection(connection);
      await clientConnection.close();
    }
  });
});

describe('HTTP tools in a conversation', () => {
  it('a worker offers the config file’s httpTools; the model’s call carries the env credential, which never reaches the history; hermes tools shows the tools and their circuits', async () => {
    const key = 'k-wired-71d3a9e4c2';
    const got: Array<{ url: string; apiKey: string | undefined }> = [];
    const api = http.createServer((req, res) => {
      got.push({ url: req.url ?? '', apiKey: req.headers['x-api-key'] as string | undefined });
      // A careless API that echoes the credential back: the tool scrubs it from its result.
      if (req.url?.startsWith('/orders/'))
        reply(res, 200, { id: req.url.slice('/orders/'.length), status: 'shipped', echo: req.headers['x-api-key'] });
      else reply(res, 503, { error: 'down' });
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', () => r()));
    const apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-http-wired-'));
    const config = path.join(dir, 'hermes.config.json');
    const auth = { type: 'header', header: 'X-Api-Key', env: 'CRM_AUTH' };
    const parameters = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    writeFileSync(
      config,
      JSON.stringify({
        httpTools: [
          { name: 'order_status', description: 'Returns an order as JSON.', parameters, endpoint: `${apiBase}/orders/{id}`, auth },
          // One retryable failure opens its circuit: the activity's retry then reads "Skipped…" as the result.
          {
            name: 'stock_level',
            description: 'Returns stock.',
            parameters,
            endpoint: `${apiBase}/stock/{id}`,
            auth,
            circuit: { failures: 1, cooldownMs: 600_000 },
          },
        ],
      }),
    );
    // CRM_AUTH does not look secret, so the worker's redactor does not know it: only the tool's own scrubbing can hide it.
    const saved = { HERMES_CONFIG: process.env.HERMES_CONFIG, HERMES_HOME: process.env.HERMES_HOME, CRM_AUTH: process.env.CRM_AUTH };
    Object.assign(process.env, { HERMES_CONFIG: config, HERMES_HOME: dir, CRM_AUTH: key });
    const h = await createHarness([toolCall('order_status', { id: 'A-17' }, 'c1'), toolCall('stock_level', { id: 'A-17' }, 'c2'), answer('shipped')]);
    try {
      await h.run(async () => {
        const handle = await h.hermes.start({ prompt: 'where is order A-17?' });
        expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'shipped' });
        expect(h.mock.requests[0]!.tools).toEqual(expect.arrayContaining(['order_status', 'stock_level', 'read_file']));
        expect(got[0]).toEqual({ url: '/orders/A-17', apiKey: key });
        const result = JSON.parse(toolResult(h.mock.requests[1]!.messages, 'c1')!) as Record<string, unknown>;
        expect(result).toEqual({ id: 'A-17', status: 'shipped', echo: '[REDACTED:env:CRM_AUTH]' });
        expect(toolResult(h.mock.requests[2]!.messages, 'c2')).toMatch(/^Error: Skipped: the HTTP tool stock_level failed 1 time/);
        expect(got.filter((g) => g.url.startsWith('/stock/'))).toHaveLength(1);
        // Payloads are base64 in the history's JSON: decoded, so the check sees what was recorded.
        const history = JSON.stringify(await handle.workflow.fetchHistory()).replace(/"data":"([A-Za-z0-9+/=]+)"/g, (_, b64: string) =>
          Buffer.from(b64, 'base64').toString('utf8'),
        );
        expect(history).toContain('order_status');
        expect(history).not.toContain(key);

        // Another process, while this worker runs: the tools from the same config file and this worker's circuits.
        const env = { HERMES_CONFIG: config, HERMES_HOME: dir };
        const listed = await spawnHermes(['tools', '--json'], { cwd: dir, env });
        expect(listed.code, listed.stderr).toBe(0);
        const out = JSON.parse(listed.stdout) as { tools: Array<{ name: string; source: string }>; httpCircuits: PublishedCircuits[] };
        expect(out.tools.filter((t) => t.source === 'http').map((t) => t.name)).toEqual(['order_status', 'stock_level']);
        const mine = out.httpCircuits.find((p) => p.pid === process.pid)!;
        expect(mine.states.find((s) => s.tool === 'stock_level')).toMatchObject({ state: 'open', failures: 1, threshold: 1 });
        expect(mine.states.find((s) => s.tool === 'order_status')).toMatchObject({ state: 'closed', failures: 0 });
        const text = await spawnHermes(['tools'], { cwd: dir, env });
        expect(text.stdout).toContain('order_status  [toolset http, read-only, http]');
        expect(text.stdout).toMatch(
          new RegExp(`worker pid ${process.pid} [^\\n]*\\n(    [^\\n]*\\n)*    stock_level: open until [^,]+, 1/1 failures, last error: [^\\n]*503`),
        );
      });
      // The worker removed its file when it stopped.
      expect(readdirSync(dir).filter((n) => n.startsWith('http-circuits-'))).toEqual([]);
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      await h.close();
      await new Promise<void>((r) => api.close(() => r()));
    }
  });
});
