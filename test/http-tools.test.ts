// Declarative HTTP tools (src/tools/http) against a real local HTTP server, without Temporal: request shapes, auth
// from the environment (and nowhere else), 4xx as readable results, 5xx/timeouts as retryable failures and the
// circuit breaker. The retry by a real activity and the tools in a conversation: http-tools-worker.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolResultError, type ExternalTool, type ExternalToolContext } from '../src/tools/catalog';
import {
  Circuits,
  createHttpTools,
  httpCircuitStates,
  publishCircuitStates,
  readPublishedCircuitStates,
  type HttpToolInput,
} from '../src/tools/http';
import { installRuntimeLogger } from '../src/observe/logger';
import { failure } from './helpers/failure';

installRuntimeLogger('ERROR');

const SECRET = 'sk-crm-9f8e7d6c5b4a3210';
const env = { CRM_TOKEN: SECRET, PATH: process.env.PATH };

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
const hits = new Map<string, number>();
let downHealthy = false;
/** How many /slow requests the server has answered. */
let slowAnswered = 0;
let server: http.Server;
let base = '';

function reply(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      const p = new URL(s.url, 'http://x').pathname;
      hits.set(p, (hits.get(p) ?? 0) + 1);
      if (p === '/items/42') return reply(res, 404, { error: 'no item 42', hint: 'ids start at 100' });
      if (p === '/echo-auth') return reply(res, 401, `bad credentials: ${String(req.headers.authorization)}`);
      if (p.startsWith('/flaky'))
        return hits.get(p) === 1 ? reply(res, 503, 'try later', { 'retry-after': '0' }) : reply(res, 200, { ok: true, attempt: hits.get(p) });
      if (p.startsWith('/down')) return downHealthy ? reply(res, 200, { ok: true }) : reply(res, 503, 'maintenance');
      if (p === '/slow') return void setTimeout(() => (slowAnswered++, reply(res, 200, 'late')), 2_000);
      if (p === '/big') return reply(res, 200, 'x'.repeat(5_000));
      if (p === '/redirect') return reply(res, 302, '', { location: 'http://elsewhere.example/' });
      reply(res, s.method === 'POST' ? 201 : 200, {
        method: s.method,
        url: s.url,
        contentType: req.headers['content-type'] ?? null,
        body,
        user: { id: 7, name: 'Ada', address: { city: 'London' } },
        tags: ['a', 'b'],
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

const logs: string[] = [];
function ctx(signal = new AbortController().signal): ExternalToolContext {
  return {
    workspace: os.tmpdir(),
    resolvePath: async (p) => p,
    signal,
    heartbeat: () => undefined,
    log: (msg, meta) => logs.push(`${msg} ${JSON.stringify(meta)}`),
    callId: 'call-1',
  };
}

function tools(defs: HttpToolInput[], circuits = new Circuits()): Record<string, ExternalTool> {
  return Object.fromEntries(createHttpTools(defs, env, { circuits }).map((t) => [t.name, t]));
}

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

describe('HTTP tool requests', () => {
  it('sends a JSON body with path parameters, mapped names and the bearer token from the environment', async () => {
    const { add_note } = tools([
      {
        name: 'add_note',
        description: 'Adds a note to a customer and returns the stored note.',
        parameters: obj({ customer_id: { type: 'string' }, text: { type: 'string' }, pinned: { type: 'boolean' } }, ['customer_id', 'text']),
        endpoint: `${base}/customers/{customer_id}/notes`,
        method: 'POST',
        paramMap: { text: 'noteBody', pinned: 'isPinned' },
        auth: { type: 'bearer', env: 'CRM_TOKEN' },
      },
    ]);
    expect(add_note.readOnly).toBe(false);
    const out = await add_note.run({ customer_id: 'a b/c', text: 'call back', pinned: true }, ctx());
    const req = seen.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/customers/a%20b%2Fc/notes');
    expect(req.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ noteBody: 'call back', isPinned: true });
    expect(JSON.parse(out)).toMatchObject({ method: 'POST' });
    expect(out).not.toContain(SECRET);
  });

  it('sends a form body, query parameters and a named auth header', async () => {
    const { search } = tools([
      {
        name: 'search',
        description: 'Searches tickets.',
        parameters: obj({ q: { type: 'string' }, page: { type: 'integer' }, labels: { type: 'array' } }),
        endpoint: `${base}/search`,
        method: 'POST',
        contentType: 'form',
        query: ['page'],
        paramMap: { q: 'query' },
        auth: { type: 'header', header: 'X-Api-Key', env: 'CRM_TOKEN' },
      },
    ]);
    await search.run({ q: 'printer & fax', page: 2, labels: ['x', 'y'] }, ctx());
    const req = seen.at(-1)!;
    expect(req.url).toBe('/search?page=2');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.headers['x-api-key']).toBe(SECRET);
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body).toBe('query=printer+%26+fax&labels=x&labels=y');
  });

  it('puts GET arguments in the query string and selects response fields', async () => {
    const { get_user } = tools([
      {
        name: 'get_user',
        description: 'Gets a user.',
        parameters: obj({ id: { type: 'integer' }, verbose: { type: 'boolean' } }),
        endpoint: `${base}/users/{id}`,
        select: ['user.name', '/user/address/city', 'tags.1', 'missing.field'],
      },
    ]);
    expect(get_user.readOnly).toBe(true);
    const out = await get_user.run({ id: 7, verbose: false }, ctx());
    expect(seen.at(-1)!.url).toBe('/users/7?verbose=false');
    expect(JSON.parse(out)).toEqual({ 'user.name': 'Ada', '/user/address/city': 'London', 'tags.1': 'b', 'missing.field': null });
  });

  it('caps the response at maxBytes', async () => {
    const { big } = tools([{ name: 'big', description: 'Big.', endpoint: `${base}/big`, maxBytes: 100 }]);
    const out = await big.run({}, ctx());
    expect(out).toBe(`${'x'.repeat(100)}\n[response cut at 100 bytes]`);
  });
});

describe('HTTP tool errors', () => {
  it('returns a 404 body to the model as a ToolResultError', async () => {
    const { get_item } = tools([
      { name: 'get_item', description: 'Gets an item.', parameters: obj({ id: { type: 'string' } }), endpoint: `${base}/items/{id}` },
    ]);
    const err = await failure(get_item.run({ id: '42' }, ctx()));
    expect(err).toBeInstanceOf(ToolResultError);
    expect(err.message).toContain('HTTP 404 Not Found');
    expect(err.message).toContain('ids start at 100');
  });

  it('never lets the credential out: an API that echoes it in an error, the result and the log are scrubbed', async () => {
    const { whoami } = tools([{ name: 'whoami', description: 'Echo.', endpoint: `${base}/echo-auth`, auth: { type: 'bearer', env: 'CRM_TOKEN' } }]);
    logs.length = 0;
    const err = await failure(whoami.run({}, ctx()));
    expect(seen.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(err).toBeInstanceOf(ToolResultError);
    expect(err.message).toContain('bad credentials: Bearer [REDACTED:env:CRM_TOKEN]');
    expect(err.message).not.toContain(SECRET);
    expect(logs.join('\n')).toContain('whoami');
    expect(logs.join('\n')).not.toContain(SECRET);
  });

  it('an unset auth variable is a clear result, not a request without credentials', async () => {
    const [t] = createHttpTools([{ name: 'nokey', description: 'x', endpoint: `${base}/x`, auth: { type: 'bearer', env: 'NOT_SET_ANYWHERE' } }], {});
    const before = seen.length;
    const err = await failure(t.run({}, ctx()));
    expect(err).toBeInstanceOf(ToolResultError);
    expect(err.message).toContain('NOT_SET_ANYWHERE is not set');
    expect(seen.length).toBe(before);
  });

  it('a redirect is not followed (a named auth header would go to the other host)', async () => {
    const { moved } = tools([
      { name: 'moved', description: 'x', endpoint: `${base}/redirect`, auth: { type: 'header', header: 'X-Key', env: 'CRM_TOKEN' } },
    ]);
    const err = await failure(moved.run({}, ctx()));
    expect(err).toBeInstanceOf(ToolResultError);
    expect(err.message).toContain('HTTP 302 Found (redirect to http://elsewhere.example/, not followed)');
  });

  it('503 throws a retryable failure and the second call (as Temporal would retry) succeeds', async () => {
    const { flaky } = tools([{ name: 'flaky', description: 'x', endpoint: `${base}/flaky-direct` }]);
    const err = await failure(flaky.run({}, ctx()));
    expect(err).not.toBeInstanceOf(ToolResultError);
    expect(err).toMatchObject({ type: 'HttpToolUnavailable', nonRetryable: false });
    expect(err.message).toContain('HTTP 503 Service Unavailable: try later');
    expect(JSON.parse(await flaky.run({}, ctx()))).toEqual({ ok: true, attempt: 2 });
  });

  it('a timeout throws a retryable failure', async () => {
    const { slow } = tools([{ name: 'slow', description: 'x', endpoint: `${base}/slow`, timeoutMs: 200 }]);
    const answered = slowAnswered;
    const err = await failure(slow.run({}, ctx()));
    // Event order: the call gave up before the server answered (it does, 2 s after the request).
    expect(slowAnswered).toBe(answered);
    expect(err).toMatchObject({ type: 'HttpToolTimeout', nonRetryable: false });
    expect(err.message).toContain('timed out after 200 ms');
  });

  it('a refused connection throws a retryable failure', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { gone } = tools([{ name: 'gone', description: 'x', endpoint: `http://127.0.0.1:${port}/x` }]);
    const err = await failure(gone.run({}, ctx()));
    expect(err).toMatchObject({ type: 'HttpToolNetwork', nonRetryable: false });
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('a bad definition fails naming the field', () => {
    const bad = [
      { name: 'ok', description: 'x', endpoint: `${base}/a` },
      { name: 'bad tool', description: 'x', endpoint: 'ftp://host/{id}', method: 'FETCH', auth: { type: 'bearer', env: 'sk-literal-secret' } },
    ];
    let message = '';
    try {
      createHttpTools(bad, env, { where: '/srv/hermes.config.json: httpTools' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('Invalid HTTP tool definitions in /srv/hermes.config.json: httpTools:');
    expect(message).toMatch(/at \[1\]\.name/);
    expect(message).toMatch(/expected an http or https URL\s+→ at \[1\]\.endpoint/);
    expect(message).toMatch(/at \[1\]\.method/);
    expect(message).toMatch(/expected an environment variable name[^\n]*\s+→ at \[1\]\.auth\.env/);
    expect(() => createHttpTools([{ name: 'p', description: 'x', parameters: obj({ a: {} }), endpoint: `${base}/{b}` }], env)).toThrow(
      /placeholder \{b\} is not a property of parameters\s+→ at \[0\]\.endpoint/,
    );
  });
});

describe('HTTP tool circuit breaker', () => {
  it('opens after repeated failures, skips calls during the cool-down, then closes after a successful trial', async () => {
    // The circuits' own clock, moved by the test: a loaded machine's pause cannot end a cool-down early.
    let now = Date.now();
    const circuits = new Circuits(() => now);
    const { status_page } = tools(
      [{ name: 'status_page', description: 'x', endpoint: `${base}/down`, circuit: { failures: 3, cooldownMs: 300 } }],
      circuits,
    );
    downHealthy = false;
    for (let i = 0; i < 3; i++) expect(await failure(status_page.run({}, ctx()))).toMatchObject({ type: 'HttpToolUnavailable' });
    expect(hits.get('/down')).toBe(3);
    expect(httpCircuitStates(circuits)).toEqual([
      expect.objectContaining({ tool: 'status_page', state: 'open', failures: 3, threshold: 3, lastError: 'HTTP 503 Service Unavailable' }),
    ]);

    const skipped = await failure(status_page.run({}, ctx()));
    expect(skipped).toBeInstanceOf(ToolResultError);
    expect(skipped.message).toMatch(/^Skipped: the HTTP tool status_page failed 3 times in a row .*circuit is open/);
    expect(hits.get('/down')).toBe(3); // not sent

    // Half-open: one trial call; it fails, so the circuit opens again at once.
    now += 350;
    expect(httpCircuitStates(circuits)[0].state).toBe('half-open');
    expect(await failure(status_page.run({}, ctx()))).toMatchObject({ type: 'HttpToolUnavailable' });
    expect(hits.get('/down')).toBe(4);
    expect(httpCircuitStates(circuits)[0].state).toBe('open');

    // The API recovers: after the cool-down the trial succeeds and the circuit closes.
    downHealthy = true;
    now += 350;
    expect(JSON.parse(await status_page.run({}, ctx()))).toEqual({ ok: true });
    expect(httpCircuitStates(circuits)[0]).toMatchObject({ state: 'closed', failures: 0 });
    await status_page.run({}, ctx());
    expect(hits.get('/down')).toBe(6);
  });

  it("publishes the worker's circuit states for other processes (hermes tools) and removes them when stopped", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-circuits-'));
    // A file left by a worker that has exited is not shown.
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    writeFileSync(path.join(dir, `http-circuits-${gone}.json`), JSON.stringify({ pid: gone, updatedAt: '', states: [] }));
    // One clock for the circuits and the reader, moved by the test: no cool-down for a loaded machine to outlast.
    let now = Date.now();
    const circuits = new Circuits(() => now);
    const stop = publishCircuitStates(dir, circuits);
    const { status_api } = tools(
      [{ name: 'status_api', description: 'x', endpoint: `${base}/down-published`, circuit: { failures: 2, cooldownMs: 200 } }],
      circuits,
    );
    expect(readPublishedCircuitStates(dir)).toEqual([
      { pid: process.pid, updatedAt: expect.any(String), states: [expect.objectContaining({ tool: 'status_api', state: 'closed', failures: 0 })] },
    ]);
    downHealthy = false;
    for (let i = 0; i < 2; i++) await failure(status_api.run({}, ctx()));
    expect(readPublishedCircuitStates(dir, now)[0].states[0]).toMatchObject({
      state: 'open',
      failures: 2,
      lastError: 'HTTP 503 Service Unavailable',
    });
    now += 250;
    expect(readPublishedCircuitStates(dir, now)[0].states[0]).toMatchObject({ state: 'half-open' });
    downHealthy = true;
    await status_api.run({}, ctx());
    expect(readPublishedCircuitStates(dir, now)[0].states[0]).toMatchObject({ state: 'closed', failures: 0 });
    stop();
    expect(readPublishedCircuitStates(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual([`http-circuits-${gone}.json`]);
  });

  it('4xx results do not count as failures', async () => {
    const circuits = new Circuits();
    const { get_item } = tools(
      [
        {
          name: 'get_item',
          description: 'x',
          parameters: obj({ id: {} }),
          endpoint: `${base}/items/{id}`,
          circuit: { failures: 1, cooldownMs: 60_000 },
        },
      ],
      circuits,
    );
    for (let i = 0; i < 3; i++) expect(await failure(get_item.run({ id: 42 }, ctx()))).toBeInstanceOf(ToolResultError);
    expect(httpCircuitStates(circuits)[0]).toMatchObject({ state: 'closed', failures: 0 });
  });
});
