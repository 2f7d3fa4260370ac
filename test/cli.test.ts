// The quickstart path for real: `node bin/hermes.js run "…"` as a child process, with no TEMPORAL_ADDRESS, so
// it starts its own embedded dev server (in a fresh HERMES_HOME, on free ports), runs an in-process worker
// that bundles the workflow code, talks to a scripted OpenAI-compatible mock over HTTP and stops the server.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { answer, toolCall, toolResult } from './helpers/harness';
import { MockModel, type Reply } from './helpers/mock-model';
import { startReceiver } from './helpers/receiver';
import { freePort, portOpen, spawnHermes } from './helpers/spawn-hermes';

let tmp: string;
const mocks: MockModel[] = [];

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hermes-cli-test-'));
});
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function dir(name: string): string {
  return mkdtempSync(path.join(tmp, `${name}-`));
}

/** Everything `hermes run` needs for a self-contained embedded run against a scripted model. */
async function embeddedRun(script: Reply[]) {
  const mock = await MockModel.start(script);
  mocks.push(mock);
  const [port, uiPort] = [await freePort(), await freePort()];
  const cliPath = inject('temporalCliPath');
  const env = {
    OPENAI_BASE_URL: mock.baseURL,
    OPENAI_API_KEY: 'sk-test',
    HERMES_MODEL: 'mock-model',
    HERMES_HOME: dir('home'),
    // the binary the test run already uses, so no venv is created in the fresh HERMES_HOME
    ...(cliPath ? { TEMPORAL_CLI_PATH: cliPath } : {}),
    HERMES_TEMPORAL_PORT: String(port),
    HERMES_UI_PORT: String(uiPort),
  };
  return { mock, env, port, uiPort, workspace: dir('ws'), cwd: dir('cwd') };
}

describe('hermes run (embedded server)', () => {
  it('runs a tool, prints the steps and the answer, and stops the server it started', async () => {
    const { mock, env, port, uiPort, workspace, cwd } = await embeddedRun([
      toolCall('write_file', { path: 'notes/hello.txt', content: 'hello from hermes\n' }),
      answer('I wrote notes/hello.txt.'),
    ]);

    const r = await spawnHermes(['run', '--workspace', workspace, 'Write a greeting to notes/hello.txt'], { env, cwd });
    console.log(`hermes run (write_file + answer) took ${r.ms} ms end to end`);
    const why = `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
    expect(r.code, why).toBe(0);

    // stdout is the answer; everything else goes to stderr
    expect(r.stdout.trim()).toBe('I wrote notes/hello.txt.');
    const id = /^conversation (\S+)/m.exec(r.stderr)?.[1];
    expect(id, why).toMatch(/^hermes-/);
    expect(r.stderr).toContain(`http://127.0.0.1:${uiPort}/namespaces/default/workflows/${id}`);
    expect(r.stderr).toMatch(/\[\s*1\] model mock-model \(model step 1\): 1 tool call\(s\): write_file/);
    expect(r.stderr).toMatch(/\[\s*2\] tool\s+write_file: notes\/hello\.txt/);
    expect(r.stderr).toMatch(/\[\s*3\] model mock-model \(model step 2\): answer/);
    expect(r.stderr).toContain('status: completed');
    expect(r.stderr).toContain(`workflow id: ${id}`);

    // the tool really ran in the workspace, and the model saw its result
    expect(readFileSync(path.join(workspace, 'notes/hello.txt'), 'utf8')).toBe('hello from hermes\n');
    mock.assertDone();
    const second = mock.requests[1].messages;
    const callId = second.find((m: any) => m.role === 'assistant')?.tool_calls?.[0]?.id;
    expect(toolResult(second, callId)).toMatch(/^Wrote \d+ bytes to notes\/hello\.txt/);
    expect(mock.requests[0].body.model).toBe('mock-model');
    expect(mock.requests[0].headers.authorization).toBe('Bearer sk-test');

    // the embedded server lived in HERMES_HOME and is gone after the command
    expect(existsSync(path.join(env.HERMES_HOME, 'temporal.db'))).toBe(true);
    expect(existsSync(path.join(env.HERMES_HOME, 'venv'))).toBe(!inject('temporalCliPath'));
    // The install's workflow bundle (written by the test setup) served this fresh home: nothing was bundled again.
    expect(existsSync(path.join(env.HERMES_HOME, 'bundles'))).toBe(false);
    expect(await portOpen(port)).toBe(false);
    expect(await portOpen(uiPort)).toBe(false);
  }, 120_000);

  it('--json prints the result as one JSON document on stdout', async () => {
    const { mock, env, workspace, cwd } = await embeddedRun([answer('The answer is 42.')]);
    const r = await spawnHermes(['run', '--json', '--id', 'cli-json-test', '--max-iterations', '5', 'What is 6 times 7?'], {
      env: { ...env, HERMES_WORKSPACE: workspace },
      cwd,
    });
    console.log(`hermes run --json (one answer) took ${r.ms} ms end to end`);
    expect(r.code, `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(0);
    const result = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      id: 'cli-json-test',
      status: 'completed',
      answer: 'The answer is 42.',
      iterations: 1,
      modelCalls: 1,
      toolCalls: 0,
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    });
    expect(r.stderr).toContain('conversation cli-json-test');
    mock.assertDone();
    expect(mock.requests[0].messages.at(-1)).toMatchObject({ role: 'user', content: 'What is 6 times 7?' });
  }, 120_000);

  it('shows every step of a batch of 8 parallel tool calls that lands between two looks', async () => {
    // Eight reads run as one concurrent batch and finish within milliseconds, well inside one 300 ms poll:
    // a follower that looks at the latest 5 steps instead of following a cursor loses some of them.
    const files = Array.from({ length: 8 }, (_, i) => `file-${i + 1}.txt`);
    const { mock, env, workspace, cwd } = await embeddedRun([
      { toolCalls: files.map((f, i) => ({ name: 'read_file', arguments: { path: f }, id: `read${i + 1}` })) },
      answer('Read all eight.'),
    ]);
    for (const f of files) writeFileSync(path.join(workspace, f), `contents of ${f}\n`);

    const r = await spawnHermes(['run', '--workspace', workspace, 'Read the eight files'], { env, cwd });
    const why = `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
    expect(r.code, why).toBe(0);
    expect(r.stdout.trim()).toBe('Read all eight.');
    mock.assertDone();

    // Every step once, in order: 1 the model's 8 calls, 2-9 the reads, 10 the answer.
    const steps = r.stderr
      .split('\n')
      .flatMap((l) => /^[ !] \[\s*(\d+)\] /.exec(l)?.[1] ?? [])
      .map(Number);
    expect(steps, why).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const reads = r.stderr.split('\n').filter((l) => /\] tool\s+read_file: /.test(l));
    expect(reads, why).toHaveLength(8);
    const readFiles = reads.map((l) => /read_file: (\S+) → ok/.exec(l)?.[1]).sort();
    expect(readFiles, why).toEqual(files);
    expect(r.stderr, why).toMatch(/\[\s*1\] model mock-model \(model step 1\): 8 tool call\(s\)/);
    expect(r.stderr, why).toMatch(/\[\s*10\] model mock-model \(model step 2\): answer/);
    expect(r.stderr).not.toContain('not shown');
  }, 120_000);

  it("--webhook POSTs the result once (a 500 retried) and waits for the delivery, whose worker is this command's", async () => {
    const { mock, env, workspace, cwd } = await embeddedRun([answer('Delivered answer.')]);
    const rec = await startReceiver([500, 200]);
    try {
      const r = await spawnHermes(['run', '--workspace', workspace, '--webhook', rec.url, 'Say something'], {
        env: { ...env, HERMES_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
        cwd,
      });
      expect(r.code, `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(0);
      expect(r.stdout.trim()).toBe('Delivered answer.');
      expect(r.stderr).toContain('webhook: delivered (HTTP 200, attempt 2)');
      const id = /^conversation (\S+)/m.exec(r.stderr)?.[1];
      expect(rec.requests.map((q) => q.status)).toEqual([500, 200]);
      expect(rec.requests[1]!.body).toMatchObject({ conversationId: id, status: 'completed', answer: 'Delivered answer.', sessionId: null });
      expect(rec.requests[1]!.headers['idempotency-key']).toBe(rec.requests[0]!.headers['idempotency-key']);
      mock.assertDone();
    } finally {
      await rec.close();
    }
  }, 120_000);
});

describe('hermes usage errors', () => {
  // No server may be started for these: HERMES_HOME stays without a database, the port stays closed.
  async function usage(args: string[]) {
    const home = dir('home');
    const port = await freePort();
    const r = await spawnHermes(args, { env: { HERMES_HOME: home, HERMES_TEMPORAL_PORT: String(port) }, cwd: dir('cwd') });
    expect(existsSync(path.join(home, 'temporal.db'))).toBe(false);
    expect(await portOpen(port)).toBe(false);
    return r;
  }

  it('--help exits 0 and lists the commands', async () => {
    const r = await usage(['--help']);
    expect(r.code).toBe(0);
    for (const cmd of ['run', 'status', 'worker', 'server', 'install-temporal']) {
      expect(r.stdout).toMatch(new RegExp(`^  hermes ${cmd}\\b`, 'm'));
    }
    expect(r.stdout).toContain('OPENAI_BASE_URL');
    expect(r.stdout).toContain('TEMPORAL_ADDRESS');
    // The CLI reference quotes the help text: a change to one must be made to the other.
    const reference = readFileSync(path.resolve(__dirname, '../docs/reference/cli.md'), 'utf8');
    expect(reference, 'docs/reference/cli.md is out of date with `hermes help`').toContain(r.stdout.trim());
  });

  it('run without a prompt exits 2 with a usage message', async () => {
    const r = await usage(['run']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('hermes run needs a prompt');
    expect(r.stderr).toContain('hermes --help');
  });

  it('run --max-iterations abc exits 2', async () => {
    const r = await usage(['run', '--max-iterations', 'abc', 'do something']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-iterations must be a whole number from 0 (no step cap) to 1000000, got "abc"');
    const over = await usage(['run', '--max-iterations', '1000001', 'do something']);
    expect(over.code).toBe(2);
    expect(over.stderr).toContain('got "1000001"');
  });

  it('checks --workspace and --max-iterations of run and chat before connecting', async () => {
    const env = { TEMPORAL_ADDRESS: '127.0.0.1:1' }; // nothing listens: a usage error must come first
    const noDir = await spawnHermes(['chat', '--workspace', 'no/such/dir'], { env });
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toMatch(/--workspace no\/such\/dir: no such directory/);
    const empty = await spawnHermes(['run', '--max-iterations', '', 'go'], { env });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--max-iterations must be a whole number from 0 \(no step cap\) to 1000000, got ""/);
  });

  it('unusable model settings are said before an embedded server is started', async () => {
    const { env } = await embeddedRun([]);
    const r = await spawnHermes(['run', 'go'], { env: { ...env, OPENAI_BASE_URL: 'localhost:11434/v1' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('OPENAI_BASE_URL="localhost:11434/v1": must be an http:// or https:// URL');
    // No server was started for it: its database is never created.
    expect(existsSync(path.join(env.HERMES_HOME, 'temporal.db'))).toBe(false);
  });

  it('an unknown option or command exits 2', async () => {
    const [opt, cmd] = await Promise.all([usage(['run', '--no-such-option', 'x']), usage(['no-such-command'])]);
    expect(opt.code).toBe(2);
    expect(opt.stderr).toContain("Unknown option '--no-such-option'");
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain('unknown command "no-such-command"');
  });
});
