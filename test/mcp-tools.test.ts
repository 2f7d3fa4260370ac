// MCP toolsets (src/tools/mcp) against real MCP servers built with the official SDK: a stdio server process the
// toolsets start (test/fixtures/mcp-server.mjs) and a streamable-HTTP server in this process; no Temporal. On a
// worker, in a conversation: mcp-tools-worker.test.ts.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ApplicationFailure } from '@temporalio/common';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolResultError, type ExternalTool, type ExternalToolContext } from '../src/tools/catalog';
import { McpToolsets } from '../src/tools/mcp';
import { parseMcpServers } from '../src/tools/mcp/schema';
import { waitFor } from './helpers/wait';
import { failure } from './helpers/failure';

const FIXTURE = path.join(__dirname, 'fixtures/mcp-server.mjs');
/** A call long enough that ending it "at once" cannot be mistaken for it finishing. */
const SLEEP_MS = 20_000;
const logs: string[] = [];
const log = (msg: string, meta?: Record<string, unknown>) => logs.push(`${msg} ${JSON.stringify(meta ?? {})}`);

function ctx(signal = new AbortController().signal): ExternalToolContext {
  return { workspace: os.tmpdir(), resolvePath: async (p) => p, signal, heartbeat: () => undefined, log, callId: 'call-1' };
}

function byName(tools: ExternalTool[]): Record<string, ExternalTool> {
  return Object.fromEntries(tools.map((t) => [t.name, t]));
}

describe('MCP over stdio', () => {
  let toolsets: McpToolsets;
  let t: Record<string, ExternalTool>;

  beforeAll(async () => {
    const env = { ...process.env, MCP_ALLOWED_VAR: 'yes', WORKER_SECRET_KEY: 'sk-worker-only-123456' };
    toolsets = new McpToolsets({ fixture: { command: process.execPath, args: [FIXTURE], env: ['MCP_ALLOWED_VAR'] } }, { env, log });
    await toolsets.start();
    t = byName(toolsets.tools());
  });
  afterAll(() => toolsets.close());

  it('lists the server tools as a toolset named after the server', () => {
    expect(Object.keys(t).sort()).toEqual(['fixture_echo', 'fixture_env', 'fixture_fail', 'fixture_mixed', 'fixture_pid', 'fixture_sleep']);
    const echo = t.fixture_echo;
    expect(echo).toMatchObject({
      toolset: 'fixture',
      source: 'mcp:fixture',
      description: 'Echoes the text back.',
      readOnly: true,
      timeoutMs: 65_000,
    });
    expect(echo.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', description: 'what to echo' } },
      required: ['text'],
    });
    expect(t.fixture_sleep.readOnly).toBe(false);
    expect(echo.parameters).not.toHaveProperty('$schema'); // the SDK's draft-07 marker; Ajv 2020 would not know it
  });

  it('calls a tool; tool errors and bad arguments come back as ToolResultErrors; content blocks become text', async () => {
    expect(await t.fixture_echo.run({ text: 'hello' }, ctx())).toBe('echo: hello');
    const err = await failure(t.fixture_fail.run({ why: 'no disk' }, ctx()));
    expect(err).toBeInstanceOf(ToolResultError);
    expect(err.message).toBe('cannot do that: no disk');
    const bad = await failure(t.fixture_echo.run({ text: 5 }, ctx()));
    expect(bad).toBeInstanceOf(ToolResultError);
    expect(bad.message).toMatch(/text/);
    expect(await t.fixture_mixed.run({}, ctx())).toBe(
      [
        'a chart follows',
        '[image: image/png, 14 bytes]',
        '[resource file:///notes.txt (text/plain)]',
        'note body',
        '[resource link: file:///big.csv (big.csv), text/csv]',
      ].join('\n'),
    );
  });

  it("gives the server only the named variables, never the worker's secrets", async () => {
    const names = JSON.parse(await t.fixture_env.run({}, ctx())) as string[];
    expect(names).toContain('MCP_ALLOWED_VAR');
    expect(names).toContain('PATH');
    expect(names).not.toContain('WORKER_SECRET_KEY');
  });

  it('aborting a call (ctx.signal) ends it at once and the server stays usable', async () => {
    const pid = await t.fixture_pid.run({}, ctx());
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 100);
    await failure(t.fixture_sleep.run({ ms: SLEEP_MS }, ctx(ac.signal)));
    expect(Date.now() - started).toBeLessThan(SLEEP_MS / 4); // ended by the abort, long before the call would have
    expect(await t.fixture_pid.run({}, ctx())).toBe(pid);
  });

  it('a server killed mid-call fails that call as retryable, and the next call restarts it', async () => {
    const pid = Number(await t.fixture_pid.run({}, ctx()));
    expect(toolsets.status()[0]).toMatchObject({ server: 'fixture', connected: true, pid, restarts: 0 });
    const call = failure(t.fixture_sleep.run({ ms: SLEEP_MS }, ctx()));
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    process.kill(pid, 'SIGKILL');
    const err = await call;
    expect(Date.now() - started).toBeLessThan(SLEEP_MS / 4); // failed by the death, long before the call would have ended
    expect(err).not.toBeInstanceOf(ToolResultError);
    expect(err).toMatchObject({ type: 'McpServerUnavailable', nonRetryable: false });
    expect(err.message).toMatch(/MCP server fixture died during sleep/);
    expect(toolsets.status()[0].connected).toBe(false);

    const newPid = Number(await t.fixture_pid.run({}, ctx()));
    expect(newPid).not.toBe(pid);
    expect(toolsets.status()[0]).toMatchObject({ connected: true, pid: newPid, restarts: 1 });
    expect(await t.fixture_echo.run({ text: 'again' }, ctx())).toBe('echo: again');
    expect(logs.some((l) => l.startsWith('MCP server restarted'))).toBe(true);
  });
});

describe('MCP configuration and start-up', () => {
  it('a bad definition fails naming the server and field', () => {
    const make = () =>
      new McpToolsets({
        'bad name': { command: 'x' },
        remote: { url: 'ftp://host/mcp' },
        both: { command: 'x', url: 'http://h/' },
        neither: { args: ['a'] },
      });
    expect(make).toThrow(/Invalid MCP server definitions/);
    let message = '';
    try {
      make();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/Invalid key in record\s+→ at \["bad name"\]/);
    expect(message).toMatch(/expected an http or https URL\s+→ at remote\.url/);
    expect(message).toMatch(/expected either "command" \(stdio\) or "url"[^\n]*\s+→ at both/);
    expect(() => new McpToolsets({ remote: { url: 'http://h/', env: ['X'] } })).toThrow(/"env" is for stdio servers[^\n]*\s+→ at remote\.env/);
    expect(message).toMatch(/expected either "command" \(stdio\) or "url"[^\n]*\s+→ at neither/);
  });

  it('a server that cannot start fails the start with its stderr, unless optional', async () => {
    const crash = { command: process.execPath, args: ['-e', 'console.error("missing config file /etc/x.json"); process.exit(3)'] };
    const failing = new McpToolsets({ broken: crash }, { log });
    await expect(failing.start()).rejects.toThrow(/MCP server broken could not be started[\s\S]*missing config file \/etc\/x\.json/);

    const optional = new McpToolsets({ broken: { ...crash, optional: true }, fixture: { command: process.execPath, args: [FIXTURE] } }, { log });
    await optional.start();
    expect(optional.tools().every((x) => x.toolset === 'fixture')).toBe(true);
    expect(optional.tools().length).toBe(6);
    await optional.close();
  });
});

describe('MCP servers that hang or die at start', () => {
  /** The MCP SDK's own request timeout, which an initialize without startTimeoutMs would wait out. */
  const SDK_INITIALIZE_TIMEOUT_MS = DEFAULT_REQUEST_TIMEOUT_MSEC;
  const stuck = {
    command: process.execPath,
    args: ['-e', "console.error('waiting for the licence server'); process.stdin.resume(); setInterval(() => {}, 1000)"],
    startTimeoutMs: 1_500,
  };

  it('a server stuck in initialize costs startTimeoutMs (default 10 s), not the SDK’s 60 s, and its stderr is in the error', async () => {
    expect(parseMcpServers({ s: { command: 'x' } }).s!.startTimeoutMs).toBe(10_000);
    const t0 = Date.now();
    const err = await failure(new McpToolsets({ stuck }, { log }).start());
    // Ratios of the two timeouts, not a stopwatch: it waited its own, and gave up long before the SDK's.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(stuck.startTimeoutMs);
    expect(Date.now() - t0).toBeLessThan(SDK_INITIALIZE_TIMEOUT_MS / 4);
    expect(err.message).toContain('MCP server stuck could not be started: it did not answer initialize within 1500 ms (startTimeoutMs)');
    expect(err.message).toMatch(/stderr:\s+waiting for the licence server/);
  });

  it('optional: a stuck or dying server is skipped as fast, and the warning carries its reason and stderr', async () => {
    const warned: string[] = [];
    const crash = {
      command: process.execPath,
      args: ['-e', 'setTimeout(() => { console.error("no such database: /srv/x.db"); process.exit(3) }, 50)'],
    };
    const toolsets = new McpToolsets(
      { stuck: { ...stuck, optional: true }, crash: { ...crash, optional: true }, fixture: { command: process.execPath, args: [FIXTURE] } },
      { log, warn: (msg, meta) => warned.push(`${msg} ${JSON.stringify(meta)}`) },
    );
    const t0 = Date.now();
    await toolsets.start();
    expect(Date.now() - t0).toBeLessThan(SDK_INITIALIZE_TIMEOUT_MS / 4);
    expect(toolsets.tools().every((x) => x.toolset === 'fixture')).toBe(true);
    await toolsets.close();
    const stuckLine = warned.find((w) => w.includes('"server":"stuck"'));
    expect(stuckLine).toMatch(/^MCP server skipped .*did not answer initialize within 1500 ms.*waiting for the licence server/);
    const crashLine = warned.find((w) => w.includes('"server":"crash"'));
    expect(crashLine).toMatch(/^MCP server skipped .*could not be started.*no such database: \/srv\/x\.db/);
  });
});

describe('MCP over streamable HTTP', () => {
  let server: http.Server;
  let port = 0;
  const seenAuth: string[] = [];

  // Stateless mode: a fresh McpServer and transport per request, as the SDK's examples do it.
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says who called.', annotations: { readOnlyHint: true } }, (extra) => {
      const auth = String(extra.requestInfo?.headers.authorization ?? '');
      seenAuth.push(auth);
      return { content: [{ type: 'text', text: `caller has ${auth ? 'a' : 'no'} token` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => mcp.close()));
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  };
  const listen = (p: number) =>
    new Promise<void>((resolve) => {
      server = http.createServer(handler);
      server.listen(p, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));

  beforeAll(() => listen(0));
  afterAll(() => stop());

  it('lists and calls tools with headers from the environment; a server that goes away fails retryably and is reconnected', async () => {
    const toolsets = new McpToolsets(
      { remote: { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer ${REMOTE_MCP_TOKEN}' } } },
      { env: { REMOTE_MCP_TOKEN: 'tok-remote-42424242' }, log },
    );
    await toolsets.start();
    const t = byName(toolsets.tools());
    expect(Object.keys(t)).toEqual(['remote_whoami']);
    expect(t.remote_whoami).toMatchObject({ toolset: 'remote', source: 'mcp:remote', readOnly: true });
    expect(await t.remote_whoami.run({}, ctx())).toBe('caller has a token');
    expect(seenAuth.at(-1)).toBe('Bearer tok-remote-42424242');

    await stop();
    const err = await failure(t.remote_whoami.run({}, ctx()));
    expect(err).not.toBeInstanceOf(ToolResultError);
    expect(err).toMatchObject({ type: 'McpServerUnavailable', nonRetryable: false });
    // The next call tries to reconnect and fails; the one after finds the back-off and fails at once, telling
    // Temporal when to try again.
    expect((await failure(t.remote_whoami.run({}, ctx()))).message).toMatch(/MCP server remote could not be restarted/);
    const backoff = await failure(t.remote_whoami.run({}, ctx()));
    expect(backoff).toMatchObject({ type: 'McpServerUnavailable', nonRetryable: false });
    expect(backoff.message).toMatch(/MCP server remote is down .*next restart attempt in 1 s/);
    expect((backoff as ApplicationFailure).nextRetryDelay).toBeGreaterThan(500);
    await listen(port);
    const answer = await waitFor('the reconnected server', () => t.remote_whoami.run({}, ctx()).catch(() => undefined), 10_000);
    expect(answer).toBe('caller has a token');
    expect(toolsets.status()[0]).toMatchObject({ server: 'remote', transport: 'http', connected: true, restarts: 1 });
    await toolsets.close();
  });
});
