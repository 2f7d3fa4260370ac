// `hermes serve` as the process a user runs: it refuses a non-loopback bind without a token, and against a cluster
// (TEMPORAL_ADDRESS, workers in processes of their own) a streamed request survives its worker being SIGKILLed
// mid-turn: the new worker finishes the turn, the request completes with the answer, nothing runs twice.
import OpenAI from 'openai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { answer } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { spawnHermes, spawnListening } from './helpers/spawn-hermes';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';
import { waitFor } from './helpers/wait';

const cleanups = cleanupsAfterEach();

describe('hermes serve (process)', () => {
  it('refuses to bind beyond loopback without a token, before connecting to anything', async () => {
    const r = await spawnHermes(['serve', '--host', '0.0.0.0', '--port', '0'], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--host 0\.0\.0\.0 .*bearer token is required \(--token T or HERMES_SERVE_TOKEN\)/);
  });

  it('refuses a blank token, from --token or HERMES_SERVE_TOKEN, before connecting to anything', async () => {
    const env = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const flag = await spawnHermes(['serve', '--host', '0.0.0.0', '--port', '0', '--token', ' '], { env });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--token: the bearer token is blank/);
    const fromEnv = await spawnHermes(['serve', '--host', '0.0.0.0', '--port', '0'], { env: { ...env, HERMES_SERVE_TOKEN: ' \t ' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/HERMES_SERVE_TOKEN: the bearer token is blank/);
    const spaced = await spawnHermes(['serve', '--port', '0', '--token', 'two words'], { env });
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toMatch(/--token: the bearer token holds a space/);
  });

  it('a streamed session request survives its worker SIGKILLed mid-turn: it completes with the answer and nothing runs twice', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const mock = await MockModel.start([
      { toolCalls: [{ id: 'c1', name: 'terminal', arguments: { command: 'echo one >> side.txt' } }] },
      // The answer step the first worker dies in: held until the kill, by then nobody is listening.
      async () => (await gate, answer('lost with the worker')),
      answer('recovered after the crash'),
    ]);
    cleanups.push(() => mock.close());
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-serve-crash-'));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    // Short heartbeat timeouts, as this process's default limits (the config file's), so the dead worker's call is retried soon.
    const config = path.join(workspace, 'hermes.config.json');
    writeFileSync(config, JSON.stringify({ limits: { modelHeartbeatSec: 2, toolHeartbeatSec: 2 } }));
    const address = inject('temporalAddress');
    const taskQueue = `serve-crash-${process.pid}-${Date.now().toString(36)}`;
    const env = workerEnv(
      { address, taskQueue, baseURL: mock.baseURL, workspace },
      { HERMES_CONFIG: config, HERMES_SANDBOX: 'none', HERMES_UNSHARE_PATH: '/nonexistent/unshare' },
    );
    const first = startWorkerProcess(env, workspace);
    await first.ready;
    const serve = await spawnListening(['serve', '--port', '0'], { env, cwd: workspace }, cleanups, /^hermes serve on (http:\/\/\S+) /m);

    const session = `crash-${Date.now().toString(36)}`;
    const client = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 120_000 });
    const stream = await client.chat.completions.create(
      { model: 'hermes', messages: [{ role: 'user', content: 'do the step' }], stream: true },
      { headers: { 'X-Hermes-Session-Id': session } },
    );
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    const reading = (async () => {
      for await (const c of stream) chunks.push(c);
    })();
    reading.catch(() => undefined); // awaited below; a failure before then is the test's own
    // The turn is under way and the stream has shown its tool step before the answer exists.
    await mock.waitForRequest(2, 60_000);
    await waitFor('the tool step in the stream', () => chunks.some((c) => JSON.stringify(c.choices[0]?.delta ?? {}).includes('terminal')), 30_000);
    first.child.kill('SIGKILL');
    await first.exited;
    // The endpoint hears the cut before the held reply is let go (else it would be written, not cut).
    await waitFor('the cut model call seen', () => mock.requests[1]?.aborted === true, 15_000);
    release();
    const second = startWorkerProcess(env, workspace);
    await second.ready;
    await reading;

    const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe('recovered after the crash');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    // Model calls: the tool step, the answer cut by the crash, its retry; the terminal command ran once.
    expect(mock.requests).toHaveLength(3);
    expect(mock.requests[1]!.aborted).toBe(true);
    expect(readFileSync(path.join(workspace, 'side.txt'), 'utf8')).toBe('one\n');
    // One workflow, one turn; a reconnect (GET the session) has the answer too.
    const view = (await (await fetch(`${serve.url}/v1/sessions/${session}`)).json()) as {
      state: { turn: number };
      last_turn: { turn: number; answer: string };
    };
    expect(view.state.turn).toBe(1);
    expect(view.last_turn).toMatchObject({ turn: 1, answer: 'recovered after the crash' });
    mock.assertDone();
  }, 180_000);
});
