// web_fetch in a real conversation: a `hermes worker` process on the dev server, the scripted model calling the
// tool against an HTTP server started here. The worker allows "localhost" by name (HERMES_WEB_ALLOW_HOSTS), so
// the same page is refused by IP literal and fetched by that name; new conversations get web_fetch by default.
import { Client, Connection } from '@temporalio/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { answer, toolCall, toolResult } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';

const cleanups = cleanupsAfterEach();

describe('web_fetch in a conversation', () => {
  it('is offered by default; loopback is refused unless the worker allows the host; HTML arrives as text', async () => {
    const hits: string[] = [];
    const page = '<html><head><title>Status</title></head><body><h1>All green</h1><p>3 services up.</p></body></html>';
    const server = createServer((req, res) => {
      hits.push(req.url!);
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const port = (server.address() as AddressInfo).port;

    const mock = await MockModel.start([
      toolCall('web_fetch', { url: `http://127.0.0.1:${port}/status` }, 'literal'),
      toolCall('web_fetch', { url: `http://localhost:${port}/status` }, 'named'),
      answer('all green'),
    ]);
    cleanups.push(() => mock.close());
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const taskQueue = `web-${process.pid}-${Date.now().toString(36)}`;
    const hermes = await Hermes.connect({ client: new Client({ connection }), taskQueue });
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-web-'));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    const worker = startWorkerProcess(
      workerEnv({ address, taskQueue, baseURL: mock.baseURL, workspace }, { HERMES_WEB_ALLOW_HOSTS: 'localhost' }),
      workspace,
    );
    await worker.ready;

    const handle = await hermes.start({ prompt: 'Is the service page green?' });
    const result = await handle.result();
    expect(mock.errors).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', answer: 'all green' });
    expect(mock.requests[0]!.tools).toContain('web_fetch');
    const messages = mock.requests[2]!.messages;
    expect(toolResult(messages, 'literal')).toMatch(/^Error: 127\.0\.0\.1 is a loopback address; web_fetch refuses loopback/);
    expect(toolResult(messages, 'named')).toBe(
      `URL: http://localhost:${port}/status\nTitle: Status\nStatus: 200; text/html, ${page.length} B, converted to text\n\nAll green\n\n3 services up.`,
    );
    // Only the allowed fetch reached the server.
    expect(hits).toEqual(['/status']);
  });
});
