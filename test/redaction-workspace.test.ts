// Redaction by meaning, not layout (issue 18): secrets planted ONLY in workspace files — never in the worker's
// environment, so value-based redaction cannot hide a gap — read through every tool that shows file content:
// read_file (line-number prefixes), search_files (file:line: prefixes), terminal cat and grep, patch and a
// read-back, web_fetch of a local file server, an MCP tool and an HTTP tool reading the same files. A real
// `hermes worker` process on the dev server, real HTTP, real files; only the model's answers are scripted.
// Nothing secret may reach a decoded history payload, a worker log line or a request to the model.
//
// And memory: a write holding a secret is stored redacted (the memory tool, hermes.memory().write), one that
// bypasses our clients is refused by the memory workflow's validator, and the next conversation's system
// prompt recalls placeholders, not secrets.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { Hermes } from '../src/client';
import { memoryWorkflowId } from '../src/shared/memory';
import { memoryWriteUpdate } from '../src/shared/messages';
import { answer, createHarness, toolCall, toolResult } from './helpers/harness';
import { historyText } from './helpers/history-text';
import { ALNUM, b64url, rand } from './helpers/random-secrets';
import { MockModel, type Reply } from './helpers/mock-model';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';

const cleanups = cleanupsAfterEach();

// ---------------------------------------------------------------------------------------------------------
// Random secrets (no test passes because a string happened to be absent), each with punctuation where a
// real one has it. Every random part is 8+ characters, so a partial leak is found too.

function planted() {
  const parts = Array.from({ length: 12 }, () => rand(10));
  const [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11] = parts as [string, ...string[]];
  const jwtSig = rand(43, `${ALNUM}-_`);
  const pemLines = Array.from({ length: 10 }, () => rand(64, `${ALNUM}+/`));
  const s = {
    awsId: `AKIA${rand(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`,
    awsSecret: `${rand(36, `${ALNUM}/+`)}Ab3/`,
    github: `ghp_${rand(36)}`,
    githubPat: `github_pat_${rand(22)}_${rand(59)}`,
    stripe: `rk_live_${rand(24)}`,
    dbPassword: `Tr0ub4dor&${p0}`,
    exportSecret: `${p1}!${p2}#x`,
    yamlPassword: `${p3}&${p4}!`,
    yamlApiKey: rand(32),
    jsonPassword: `${p5}#${p6}`,
    tomlPassword: `${p7}${p8}`,
    prosePassword: `p4ss${p9}&z`,
    jwt: `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${p10}","iat":1700000000}`)}.${jwtSig}`,
    pem: ['-----BEGIN OPENSSH PRIVATE KEY-----', ...pemLines, '-----END OPENSSH PRIVATE KEY-----'].join('\n'),
  };
  const needles = [...Object.values(s).filter((v) => !v.includes('\n')), ...parts.filter((p) => p !== p11), jwtSig, ...pemLines];
  return { ...s, needles };
}
type Planted = ReturnType<typeof planted>;

function leaked(haystack: string, s: Planted): string[] {
  return s.needles.filter((x) => haystack.includes(x));
}

function plantFiles(ws: string, s: Planted): void {
  mkdirSync(path.join(ws, 'config'));
  mkdirSync(path.join(ws, 'keys'));
  const files: Record<string, string> = {
    '.env': [
      '# planted by the test',
      'PORT=8080',
      `AWS_ACCESS_KEY_ID=${s.awsId}`,
      `AWS_SECRET_ACCESS_KEY=${s.awsSecret}`,
      `GITHUB_TOKEN=${s.github}`,
      `STRIPE_KEY=${s.stripe}`,
      `DB_PASSWORD=${s.dbPassword}`,
      `export API_SECRET="${s.exportSecret}"`,
      `SESSION_JWT=${s.jwt}`,
      'TOKEN_FILE=/run/secrets/token',
      'LOG_LEVEL=debug',
      '',
    ].join('\n'),
    'config/app.yaml': [
      'database:',
      '  host: db.internal',
      '  user: app',
      `  password: ${s.yamlPassword}`,
      '  password_min_length: 12',
      'llm:',
      '  tokens: 120',
      `  api_key: "${s.yamlApiKey}"`,
      '',
    ].join('\n'),
    'config/settings.json': `${JSON.stringify({ db: { password: s.jsonPassword, pool: 5 }, github: { token: s.githubPat }, max_tokens: 4096, keyboard: 'us' }, null, 2)}\n`,
    'config.toml': ['[server]', 'max_tokens = 4096', `password = "${s.tomlPassword}"`, ''].join('\n'),
    'keys/deploy.pem': `${s.pem}\n`,
    'notes.md': [
      '# Deploy notes',
      `AWS secret ${s.awsSecret} for deploys`,
      `db password is ${s.prosePassword} (prod)`,
      'The token is rotated monthly; ask ops for the password.',
      '',
    ].join('\n'),
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(ws, name), text);
}

/** Serves the workspace's files (GET /files/<path>), JSON as application/json; records what was asked. */
async function fileServer(ws: string): Promise<{ base: string; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url!, 'http://x').pathname.replace(/^\/files\//, ''));
    hits.push(rel);
    try {
      const body = readFileSync(path.join(ws, rel), 'utf8');
      res.writeHead(200, { 'content-type': rel.endsWith('.json') ? 'application/json' : 'text/plain' }).end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such file');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

/** A streamable-HTTP MCP server whose `read` tool returns a workspace file (stateless: one server per request). */
async function mcpFileServer(ws: string): Promise<string> {
  const server = http.createServer((req, res) => {
    const mcp = new McpServer({ name: 'files', version: '1.0.0' });
    mcp.registerTool(
      'read',
      { description: 'Returns a workspace file.', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
      ({ path: rel }) => ({ content: [{ type: 'text', text: readFileSync(path.join(ws, rel), 'utf8') }] }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => mcp.close()));
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

const FILES = ['.env', 'config/app.yaml', 'config/settings.json', 'config.toml', 'keys/deploy.pem', 'notes.md'];

function script(s: Planted, base: string): Reply[] {
  const id = (p: string) => p.replace(/[^a-z]/gi, '');
  return [
    {
      toolCalls: [
        ...FILES.map((p) => ({ name: 'read_file', arguments: { path: p }, id: `read-${id(p)}` })),
        { name: 'search_files', arguments: { pattern: 'PASSWORD|password|KEY|key|TOKEN|token|SECRET|secret|BEGIN' }, id: 'search' },
        { name: 'terminal', arguments: { command: `cat ${FILES.join(' ')}` }, id: 'cat' },
        { name: 'terminal', arguments: { command: 'grep -rn -i -e password -e secret -e token --exclude-dir=.hermes-output .' }, id: 'grep' },
        ...['.env', 'config/app.yaml', 'config/settings.json', 'notes.md'].map((p) => ({
          name: 'web_fetch',
          arguments: { url: `${base}/files/${p}` },
          id: `web-${id(p)}`,
        })),
        ...['.env', 'config/settings.json', 'keys/deploy.pem'].map((p) => ({ name: 'files_read', arguments: { path: p }, id: `mcp-${id(p)}` })),
        ...['config/app.yaml', 'notes.md', 'config.toml'].map((p) => ({ name: 'get_file', arguments: { name: p }, id: `http-${id(p)}` })),
      ],
    },
    toolCall('patch', { path: '.env', old_string: 'PORT=8080', new_string: 'PORT=9090' }, 'patch'),
    {
      toolCalls: [
        { name: 'read_file', arguments: { path: '.env' }, id: 'reread' },
        { name: 'terminal', arguments: { command: 'cat -n .env' }, id: 'catn' },
      ],
    },
    // The answer quotes what it "saw": a bare AWS secret in prose and a password (a scheduled run's answer is
    // redacted by the same model activity).
    answer(`Done: AWS secret ${s.awsSecret}, and the db password is ${s.prosePassword}.`),
  ];
}

describe('acceptance: secrets planted only in workspace files (real dev server, `hermes worker` process)', () => {
  it('read_file, search_files, terminal, patch, web_fetch, MCP and HTTP tools: no secret in history, log or model requests', async () => {
    const s = planted();
    const workspace = await realpath(mkdtempSync(path.join(os.tmpdir(), 'hermes-redact-ws-')));
    const configDir = mkdtempSync(path.join(os.tmpdir(), 'hermes-redact-cfg-'));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    cleanups.push(() => rmSync(configDir, { recursive: true, force: true }));
    plantFiles(workspace, s);
    const files = await fileServer(workspace);
    const mcpUrl = await mcpFileServer(workspace);
    const config = path.join(configDir, 'hermes.config.json');
    const parameters = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { files: { url: mcpUrl } },
        httpTools: [
          { name: 'get_file', description: 'Returns a workspace file from the file server.', parameters, endpoint: `${files.base}/files/{name}` },
        ],
      }),
    );

    const mock = await MockModel.start(script(s, files.base));
    cleanups.push(() => mock.close());
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const client = new Client({ connection });
    const taskQueue = `redact-ws-${process.pid}-${Date.now().toString(36)}`;
    const hermes = await Hermes.connect({ client, taskQueue });
    const env = workerEnv(
      { address, taskQueue, baseURL: mock.baseURL, workspace },
      { HERMES_CONFIG: config, HERMES_HOME: configDir, HERMES_WEB_ALLOW_PRIVATE: '1', HERMES_LOG_LEVEL: 'debug', HERMES_SDK_LOG_LEVEL: 'INFO' },
    );
    // The point of this test: the worker does not know any planted value.
    expect(leaked(JSON.stringify(env), s)).toEqual([]);
    const worker = startWorkerProcess(env, workspace);
    await worker.ready;

    const handle = await hermes.start({ prompt: 'Audit the deploy configuration.' });
    const result = await handle.result();
    expect(mock.errors).toEqual([]);
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('Done: AWS secret [REDACTED:aws-secret-key], and the db password is [REDACTED:secret].');
    mock.assertDone();

    // What the model saw: every tool ran and showed the files, with the secrets replaced and the rest intact.
    const seen = mock.requests[1]!.messages;
    const out = (id: string) => {
      const text = toolResult(seen, id);
      expect(text, id).toBeDefined();
      expect(text, id).not.toMatch(/^Error/);
      return text!;
    };
    for (const id of ['read-env', 'cat', 'web-env', 'mcp-env']) {
      const text = out(id);
      expect(text, id).toContain('AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key-id]');
      expect(text, id).toContain('AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]');
      expect(text, id).toContain('GITHUB_TOKEN=[REDACTED:github-token]');
      expect(text, id).toContain('STRIPE_KEY=[REDACTED:stripe-key]');
      expect(text, id).toContain('DB_PASSWORD=[REDACTED:secret]');
      expect(text, id).toContain('export API_SECRET="[REDACTED:secret]"');
      expect(text, id).toContain('SESSION_JWT=[REDACTED:jwt]');
      expect(text, id).toContain('PORT=8080');
      expect(text, id).toContain('TOKEN_FILE=/run/secrets/token');
    }
    expect(out('read-env')).toMatch(/^ +7\| DB_PASSWORD=\[REDACTED:secret\]$/m); // after read_file's line prefix
    for (const id of ['read-configappyaml', 'web-configappyaml', 'http-configappyaml']) {
      const text = out(id);
      expect(text, id).toContain('  password: [REDACTED:secret]');
      expect(text, id).toContain('  api_key: "[REDACTED:secret]"');
      expect(text, id).toContain('password_min_length: 12');
      expect(text, id).toContain('tokens: 120');
      expect(text, id).toContain('host: db.internal');
    }
    for (const id of ['read-configsettingsjson', 'web-configsettingsjson', 'mcp-configsettingsjson']) {
      const text = out(id);
      expect(text, id).toContain('"password": "[REDACTED:secret]"');
      expect(text, id).toContain('"token": "[REDACTED:github-token]"');
      expect(text, id).toContain('"max_tokens": 4096');
    }
    for (const id of ['read-configtoml', 'http-configtoml']) expect(out(id), id).toContain('password = "[REDACTED:secret]"');
    for (const id of ['read-configtoml', 'http-configtoml']) expect(out(id), id).toContain('max_tokens = 4096');
    for (const id of ['read-keysdeploypem', 'mcp-keysdeploypem']) expect(out(id), id).toContain('[REDACTED:private-key]');
    for (const id of ['read-notesmd', 'web-notesmd', 'http-notesmd']) {
      const text = out(id);
      expect(text, id).toContain('AWS secret [REDACTED:aws-secret-key] for deploys');
      expect(text, id).toContain('db password is [REDACTED:secret] (prod)');
      expect(text, id).toContain('The token is rotated monthly; ask ops for the password.');
    }
    expect(out('search')).toMatch(/^\.env:7: DB_PASSWORD=\[REDACTED:secret\]$/m); // after search_files' prefix
    expect(out('search')).toContain('config/app.yaml:4:   password: [REDACTED:secret]');
    expect(out('grep')).toMatch(/config\/settings\.json:\d+: +"password": "\[REDACTED:secret\]"/);
    const last = mock.requests.at(-1)!.messages;
    expect(toolResult(last, 'patch')).toBe('Replaced 1 occurrence in .env');
    for (const id of ['reread', 'catn']) {
      const text = toolResult(last, id)!;
      expect(text, id).toContain('PORT=9090');
      expect(text, id).toContain('DB_PASSWORD=[REDACTED:secret]');
    }
    // The servers were really asked: web_fetch and the HTTP tool each reached the file server.
    expect(files.hits).toEqual(expect.arrayContaining(['.env', 'config/app.yaml', 'config/settings.json', 'notes.md', 'config.toml']));

    // Nothing secret reached the model, the history (every payload decoded) or the worker's log.
    expect(leaked(JSON.stringify(mock.requests.map((r) => r.raw)), s)).toEqual([]);
    const history = historyText(await handle.workflow.fetchHistory());
    expect(history).toContain('[REDACTED:secret]');
    expect(leaked(history, s)).toEqual([]);
    const state = await hermes.get(handle.id).state({ stepsAfter: 0 });
    expect(state.redactions).toBeGreaterThanOrEqual(60);
    worker.child.kill('SIGTERM');
    await worker.exited;
    const log = worker.output();
    expect(log).toContain('"msg":"http tool call"'); // the log tells of the tool calls, and is searched
    expect(leaked(log, s)).toEqual([]);
    // Redaction is of what leaves the worker, never of the files: the patch wrote around the secrets.
    const onDisk = readFileSync(path.join(workspace, '.env'), 'utf8');
    expect(onDisk).toContain(`DB_PASSWORD=${s.dbPassword}`);
    expect(onDisk).toContain('PORT=9090');
  });
});

describe('memory writes are redacted before they are stored (real dev server)', () => {
  it('the memory tool and hermes.memory().write store placeholders; a raw update with a secret is refused; the next prompt recalls no secret', async () => {
    const s = planted();
    const scope = `redact-${Date.now().toString(36)}`;
    const h = await createHarness([
      {
        toolCalls: [
          { name: 'memory', arguments: { action: 'add', store: 'notes', text: `AWS secret ${s.awsSecret} for deploys` }, id: 'm1' },
          { name: 'memory', arguments: { action: 'add', store: 'user', text: `db password is ${s.dbPassword} (prod)` }, id: 'm2' },
        ],
      },
      answer('saved'),
      answer('recalled'),
    ]);
    cleanups.push(() => h.close());
    await h.run(async () => {
      const first = await h.hermes.start({ prompt: 'remember the deploy credentials', memoryScope: scope });
      expect(await first.result()).toMatchObject({ status: 'completed', answer: 'saved' });
      // The model's tool call was redacted before it was recorded, so the tool got placeholders and says so.
      const seen = h.mock.requests[1]!.messages;
      expect(toolResult(seen, 'm1')).toMatch(/^Added to agent notes\. .* The text holds redaction placeholders/);

      // From code: redacted in the client, before the update is sent (its arguments are recorded in history).
      const m = h.hermes.memory(scope);
      const written = await m.write({
        action: 'add',
        store: 'notes',
        text: `deploy key ${s.awsId} with token ${s.github}; password: ${s.yamlPassword}`,
      });
      expect(written.redactions).toBe(3);
      expect(written.message).toMatch(/3 secrets were replaced with a placeholder before storing\.$/);

      // Around our clients (as the stock `temporal workflow update` would): the validator refuses, nothing is recorded.
      const raw = h.client.workflow.getHandle(memoryWorkflowId(scope));
      const refused = await raw
        .executeUpdate(memoryWriteUpdate, { args: [{ action: 'add', store: 'notes', text: `the db password is ${s.prosePassword}` }] })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(String((refused as WorkflowUpdateFailedError).cause?.message)).toMatch(/refused: nothing was saved because .* credential \(secret\)/);
      // The entry is found by its text as stored (and shown): the placeholder.
      await m.write({ action: 'remove', store: 'notes', match: 'deploy key [REDACTED:aws-access-key-id]' });

      const view = await m.read();
      expect(view.notes.entries).toEqual(['AWS secret [REDACTED:aws-secret-key] for deploys']);
      expect(view.user.entries).toEqual(['db password is [REDACTED:secret] (prod)']);

      // The next conversation of the scope recalls the placeholders.
      const second = await h.hermes.start({ prompt: 'what do you know?', memoryScope: scope });
      expect(await second.result()).toMatchObject({ status: 'completed', answer: 'recalled' });
      const system = h.mock.requests[2]!.messages[0].content as string;
      expect(system).toContain('AWS secret [REDACTED:aws-secret-key] for deploys');
      expect(system).toContain('db password is [REDACTED:secret] (prod)');

      expect(leaked(JSON.stringify(h.mock.requests.map((r) => r.raw)), s)).toEqual([]);
      for (const id of [first.id, second.id, memoryWorkflowId(scope)]) {
        const text = historyText(await h.client.workflow.getHandle(id).fetchHistory());
        expect(text, id).toContain('[REDACTED:');
        expect(leaked(text, s), id).toEqual([]);
      }
    });
  });
});
