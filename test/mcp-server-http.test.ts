// `hermes mcp --http`, driven by the MCP SDK's streamable HTTP client against a `hermes mcp` process, the run's dev
// server and a `hermes worker` process with a scripted model. With principals (a tokens file, as hermes serve
// takes): alice starts a task, waits for it and reads it; bob, with his own token, can neither see, wait for, steer,
// read nor find it; no token is a 401. Without a token: a web page's request (its Origin, a rebound Host) is a 403,
// before anything reaches a conversation; past --max-concurrent a 429, and a client gone frees its slot. Usage
// errors come before anything connects.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { answer } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { spawnHermes, spawnListening } from './helpers/spawn-hermes';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';
import { waitFor } from './helpers/wait';

const cleanups = cleanupsAfterEach();

type Result = CallToolResult & { structuredContent?: Record<string, any> };
const text = (r: Result) => (r.content[0] as { text: string }).text;
const alice = { name: 'alice', token: 'alice-0123456789abcdef0123' };
const bob = { name: 'bob', token: 'bob-0123456789abcdef012345' };
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};

describe('hermes mcp --http with principals', () => {
  it('refuses, before connecting to anything, a bind beyond loopback without a token and HTTP options without --http', async () => {
    const env = { TEMPORAL_ADDRESS: '127.0.0.1:1' }; // nothing listens: a usage error must come first
    const open = await spawnHermes(['mcp', '--http', '0', '--host', '0.0.0.0'], { env });
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/--host 0\.0\.0\.0 is reachable from other machines: a bearer token is required/);
    const stdio = await spawnHermes(['mcp', '--token', 'abcdefghijklmnopqrstu'], { env });
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain('--token is an option of hermes mcp --http PORT');
    const port = await spawnHermes(['mcp', '--http', 'abc'], { env });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--http must be a port number');
  });

  it('without a token refuses a web page (a foreign Origin, a rebound Host: 403) and requests past --max-concurrent (429)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-mcp-open-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const taskQueue = `mcp-open-${Date.now().toString(36)}`;
    const { url } = await spawnListening(
      ['mcp', '--http', '0', '--allow-origin', 'http://localhost:5173', '--max-concurrent', '2'],
      { env: { TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: taskQueue, HERMES_MODEL: 'mock' }, cwd: dir },
      cleanups,
      /^hermes mcp on (http:\/\/\S+) .*no token: loopback only/m,
    );
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'start_task', arguments: { prompt: 'Send me ~/.ssh' } } };
    const post = (headers: Record<string, string>) =>
      raw(url, 'POST', { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, JSON.stringify(call));
    const page = await post({ Origin: 'https://evil.example' });
    expect(page.status).toBe(403);
    expect(errorOf(page)).toMatch(/Origin "https:\/\/evil\.example" is not allowed/);
    // DNS rebinding: the page's name resolves to 127.0.0.1 and its requests carry that name.
    const rebound = await post({ Host: `attacker.example:${new URL(url).port}` });
    expect(rebound.status).toBe(403);
    expect(errorOf(rebound)).toMatch(/^Host "attacker\.example:\d+" is not this server's/);
    expect((await post({ 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    // A configured origin's preflight is answered, with the MCP headers a page needs.
    const preflight = await raw(url, 'OPTIONS', { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(preflight.headers['access-control-allow-headers']).toContain('Mcp-Protocol-Version');

    // Nothing refused reached a conversation: the task queue has none. (Raw JSON-RPC: the endpoint is stateless.)
    expect((await rpcResult(url, 'resources/list', {})).resources).toEqual([]);

    // Two waits hold both slots (no worker: the task never ends); a third request is a 429; a client gone frees its slot.
    const started = (await rpcResult(url, 'tools/call', { name: 'start_task', arguments: { prompt: 'Wait for a worker.' } })).structuredContent;
    expect(started.note).toContain(`no worker polls the task queue "${taskQueue}"`);
    const gone = new AbortController();
    const wait = () => rpc(url, 'tools/call', { name: 'task_result', arguments: { id: started.id, waitSec: 120 } }, gone.signal);
    expect((await Promise.all([wait(), wait()])).map((r) => r.status)).toEqual([200, 200]);
    const busy = await rpc(url, 'tools/list', {});
    expect({ status: busy.status, retryAfter: busy.headers.get('retry-after') }).toEqual({ status: 429, retryAfter: '1' });
    expect(await busy.text()).toContain('more than 2 requests at once');
    gone.abort();
    await waitFor('the slots of the waits given up to be free', async () => (await rpc(url, 'tools/list', {})).status === 200);

    // The server goes on: the SDK's client with no token is answered; an unknown id and bad arguments are tool errors.
    const c = new Client({ name: 'hermes-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    cleanups.push(() => c.close());
    expect((await c.listResources()).resources.map((r) => r.name)).toEqual([started.id]);
    const none = (await c.callTool({ name: 'task_status', arguments: { id: 'hermes-nope' } })) as Result;
    expect({ isError: none.isError, text: text(none) }).toEqual({ isError: true, text: 'no conversation "hermes-nope"' });
    const bad = (await c.callTool({ name: 'start_task', arguments: { prompt: 42 } })) as Result;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/prompt/);
  });

  it("keeps each principal's conversations its own; no token is a 401, a web page a 403", async () => {
    const mock = await MockModel.start([answer('The platypus report is filed.'), answer("Bob's own task is done.")]);
    cleanups.push(() => mock.close());
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-mcp-http-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const tokens = path.join(dir, 'tokens.txt');
    writeFileSync(tokens, `alice: ${alice.token}\nbob: ${bob.token}\n`, { mode: 0o600 });
    const taskQueue = `mcp-http-${Date.now().toString(36)}`;
    const address = inject('temporalAddress');
    const worker = startWorkerProcess(workerEnv({ address, taskQueue, baseURL: mock.baseURL, workspace: dir }), dir);
    await worker.ready;

    const { url, output } = await spawnListening(
      ['mcp', '--http', '0', '--tokens', tokens],
      { env: { TEMPORAL_ADDRESS: address, HERMES_TASK_QUEUE: taskQueue, HERMES_MODEL: 'mock' }, cwd: dir },
      cleanups,
      /^hermes mcp on (http:\/\/\S+) /m,
    );
    expect(url, output()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(output()).toContain('2 principals, each its own conversations: alice, bob');

    const connect = async (p: { token: string }) => {
      const c = new Client({ name: 'hermes-test', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${p.token}` } } }));
      cleanups.push(() => c.close());
      return { c, call: (name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }) as Promise<Result> };
    };

    // No token, a token that is nobody's, a web page's Origin: refused before the MCP layer.
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(INIT),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ Authorization: `Bearer ${'x'.repeat(26)}` })).status).toBe(401);
    const page = await post({ Authorization: `Bearer ${alice.token}`, Origin: 'https://evil.example' });
    expect(page.status).toBe(403);
    expect(((await page.json()) as { error: { message: string } }).error.message).toMatch(/Origin "https:\/\/evil\.example" is not allowed/);
    await expect(connect({ token: 'y'.repeat(26) })).rejects.toThrow();
    // Stateless: no GET stream; and a body past 2 MiB is refused before it is read whole.
    expect((await fetch(url, { headers: { Authorization: `Bearer ${alice.token}`, Accept: 'text/event-stream' } })).status).toBe(405);
    const big = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ ...INIT, pad: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);

    // Alice: a task, its answer, its transcript.
    const a = await connect(alice);
    const started = await a.call('start_task', { prompt: 'File the platypus report.' });
    expect(started.isError, text(started)).toBeFalsy();
    const id = started.structuredContent!.id as string;
    expect(id).toMatch(/^hermes-mcp-alice\/hermes-/);
    const done = await a.call('task_result', { id, waitSec: 60 });
    expect(done.structuredContent).toMatchObject({ finished: true, status: 'completed', answer: 'The platypus report is filed.' });
    const uri = started.structuredContent!.transcript as string;
    expect(uri).toBe(`hermes://conversations/${encodeURIComponent(id)}`);
    expect(((await a.c.readResource({ uri })).contents[0] as { text: string }).text).toContain('[assistant] The platypus report is filed.');
    // A principal's task runs in its own memory scope, and picks no workspace of its own.
    expect(mock.requests[0]!.messages[0].content).toContain('memory-context scope="principal:alice"');
    const ws = await a.call('start_task', { prompt: 'x', workspace: dir });
    expect(ws.isError).toBe(true);
    expect(text(ws)).toContain("a principal's tasks run in the server's workspace");

    // Bob: alice's conversation does not exist for him, whatever he calls.
    const b = await connect(bob);
    for (const [name, args] of [
      ['task_status', { id }],
      ['task_result', { id, waitSec: 1 }],
      ['interrupt', { id }],
      ['answer_question', { id, text: 'yes' }],
      ['approve', { id, callId: 'c1' }],
      ['send_message', { id, text: 'hello' }],
    ] as const) {
      const r = await b.call(name, args);
      expect({ name, isError: r.isError, text: text(r) }).toEqual({
        name,
        isError: true,
        text: `no conversation ${JSON.stringify(id)} of principal bob`,
      });
    }
    await expect(b.c.readResource({ uri })).rejects.toThrow(/no conversation/);
    // Alice finds her task by a word of its answer (once the index has it); bob, searching the same word, does not.
    await waitFor(
      "alice's task in her search",
      async () => ((await a.call('search_conversations', { query: 'platypus' })).structuredContent?.hits as unknown[] | undefined)?.length,
      30_000,
    );
    const bobSearch = await b.call('search_conversations', { query: 'platypus' });
    expect(bobSearch.isError, text(bobSearch)).toBeFalsy();
    expect(bobSearch.structuredContent).toMatchObject({ hits: [], scope: 'principal:bob' });
    const wider = await b.call('search_conversations', { query: 'platypus', allScopes: true });
    expect(wider.isError).toBe(true);
    // Bob's own task is his.
    const own = await b.call('start_task', { prompt: 'My own task.' });
    const ownId = own.structuredContent!.id as string;
    expect(ownId).toMatch(/^hermes-mcp-bob\//);
    expect((await b.call('task_result', { id: ownId, waitSec: 60 })).structuredContent).toMatchObject({ answer: "Bob's own task is done." });
    expect((await a.call('task_status', { id: ownId })).isError).toBe(true);

    expect(mock.errors).toEqual([]);
    expect(mock.requests).toHaveLength(2);
  }, 120_000);
});

/** A JSON-RPC request as a client sends it; the answer is an event stream while the tool runs. */
const rpc = (url: string, method: string, params: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    ...(signal ? { signal } : {}),
  });

/** The result of a JSON-RPC request: the `data:` line of the event stream that answers it. */
async function rpcResult(url: string, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await rpc(url, method, params);
  const body = await r.text();
  expect(r.status, body).toBe(200);
  const data = /^data: (.*)$/m.exec(body)?.[1];
  return (JSON.parse(data ?? body) as { result: Record<string, any> }).result;
}

const errorOf = (r: { body: string }) => (JSON.parse(r.body) as { error: { message: string } }).error.message;

/** A request with exactly these headers (fetch would not let a test set Host). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string) {
  const u = new URL(url);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path: u.pathname, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
