// Secrets a user types are replaced before they enter a history: the client's start (prompt, system, summary),
// send, answer and interrupt, `hermes run` and `hermes serve` — with a notice — unless the run is encrypted. What
// shows a conversation (its input, the Web UI's summary, `hermes list --json`, `hermes export`) then holds the
// placeholder. Also what tools read: base64 of a .env and a password named in prose. A real worker on the dev
// server, the real CLI and serve; only the model's answers are scripted.
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { codecDataConverter, payloadCodec } from '../src/codec';
import { startServe } from '../src/http-api/server';
import { decodeStoredValue } from '../src/storage/decode';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { historyText } from './helpers/history-text';
import { rand } from './helpers/random-secrets';
import { spawnHermes } from './helpers/spawn-hermes';
import { waitFor } from './helpers/wait';
import { cleanupsAfterEach } from './helpers/worker-process';

const cleanups = cleanupsAfterEach();

async function harness(script: Parameters<typeof createHarness>[0]): Promise<Harness> {
  const h = await createHarness(script);
  cleanups.push(() => h.close());
  return h;
}

const secrets = () => ({ key: `sk-proj-${rand(40)}9`, password: `Hunter2-${rand(10)}`, token: `ghp_${rand(36)}` });

async function leaks(h: Harness, id: string, needles: string[]): Promise<string[]> {
  const text = historyText(await h.client.workflow.getHandle(id).fetchHistory());
  return needles.filter((n) => text.includes(n));
}

describe('secrets in what users type', () => {
  it('the client replaces them before the start; input, summary, list --json and export show the placeholder; tool output too', async () => {
    const s = secrets();
    const inFile = { key: `sk-proj-${rand(40)}7`, password: `Pa55-${rand(12)}`, prose: `Tr0ub-${rand(10)}` };
    const h = await harness([toolCall('terminal', { command: 'cat env.b64 notes.txt' }, 't1'), answer('deployed')]);
    writeFileSync(
      path.join(h.workspace, 'env.b64'),
      Buffer.from(`OPENAI_API_KEY=${inFile.key}\nDB_PASSWORD=${inFile.password}\n`).toString('base64').replace(/.{76}/g, '$&\n') + '\n',
    );
    writeFileSync(path.join(h.workspace, 'notes.txt'), `staging: db password ${inFile.prose} (rotate monthly)\n`);
    const prompt = `Deploy with OPENAI_API_KEY=${s.key} and the db password ${s.password}`;
    const { id, redaction } = await h.run(async () => {
      const run = await h.hermes.start({ prompt });
      expect((await run.result()).status).toBe('completed');
      return { id: run.id, redaction: run.redaction };
    });
    expect(redaction?.count).toBe(2);
    expect(redaction?.placeholders).toEqual(['[REDACTED:openai-key]', '[REDACTED:secret]']);
    expect(redaction?.notice).toMatch(/^2 secret\(s\) in what you typed were replaced before sending .*HERMES_PAYLOAD_KEY/);

    const all = [s.key, s.password, ...Object.values(inFile)];
    expect(await leaks(h, id, all)).toEqual([]);
    expect(JSON.stringify(h.mock.requests)).not.toMatch(new RegExp(all.join('|')));
    const d = await h.client.workflow.getHandle(id).describe();
    expect(await d.staticSummary()).toBe('Deploy with OPENAI_API_KEY=[REDACTED:openai-key] and the db password [REDACTED:secret]');
    const out = toolResult(h.mock.requests[1]!.messages, 't1')!;
    expect(out).toMatch(/\[REDACTED:base64:(openai-key|secret)\]/);
    expect(out).toContain('db password [REDACTED:secret] (rotate monthly)');

    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue };
    const list = await spawnHermes(['list', '--json'], { env, timeoutMs: 60_000 });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('OPENAI_API_KEY=[REDACTED:openai-key]');
    const exported = await spawnHermes(['export', id], { env, timeoutMs: 60_000 });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('OPENAI_API_KEY=[REDACTED:openai-key]');
    for (const text of [list.stdout, exported.stdout]) expect(all.filter((x) => text.includes(x))).toEqual([]);
  });

  it('chat send and hermes run replace them too, and say so; an encrypted run is left as typed', async () => {
    const s = secrets();
    const h = await harness([answer('noted'), answer('ran')]);
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue };
    const { chatId, sent, cli } = await h.run(async () => {
      const chat = await h.hermes.start({ mode: 'chat' });
      const sent = await chat.send(`push with token ${s.token}`);
      await chat.end();
      const cli = await spawnHermes(['run', `use the password: ${s.password}`], { env, timeoutMs: 60_000 });
      return { chatId: chat.id, sent, cli };
    });
    expect(sent.answer).toBe('noted');
    expect(sent.redaction?.placeholders).toEqual(['[REDACTED:github-token]']);
    expect(await leaks(h, chatId, [s.token])).toEqual([]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toMatch(/hermes: 1 secret\(s\) in what you typed were replaced before sending \(\[REDACTED:secret\]\)/);
    expect(JSON.stringify(h.mock.requests)).not.toMatch(new RegExp(`${s.token}|${s.password}`));
    expect(JSON.stringify(h.mock.requests[1]!.messages)).toContain('use the password: [REDACTED:secret]');

    // Encrypted: the server holds ciphertext only, so what was typed is sent as it is (and no notice).
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    cleanups.push(() => connection.close());
    const codec = payloadCodec({ HERMES_PAYLOAD_KEY: 'ab'.repeat(32) })!;
    const client = new Client({ connection, dataConverter: codecDataConverter(codec) });
    const secure = await Hermes.connect({ client, taskQueue: `${h.taskQueue}-none` });
    const run = await secure.start({ prompt: `deploy with ${s.key}` });
    cleanups.push(() => run.workflow.terminate('test over'));
    expect(run.redaction).toBeUndefined();
    const first = (await run.workflow.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    expect(Buffer.from(first.data!).toString('latin1')).not.toContain(s.key);
    const input = (await decodeStoredValue(client.options.loadedDataConverter, first as Payload)) as { prompt: string };
    expect(input.prompt).toBe(`deploy with ${s.key}`);
  });

  it('hermes serve replaces them in the messages before the session starts or is sent to, with X-Hermes-Redacted', async () => {
    const s = secrets();
    const h = await harness([answer('first'), answer('second')]);
    const srv = await startServe({ hermes: h.hermes, port: 0, profiles: () => ({ defaultName: 'default', names: ['default'] }) });
    cleanups.push(() => srv.close());
    const post = (content: string) =>
      fetch(`${srv.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Hermes-Session-Id': 'typed-secrets' },
        body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content }] }),
      });
    const [a, b] = await h.run(async () => {
      await waitFor('the worker polling', () => h.hermes.workerPolling()); // serve answers 503 before that
      return [await post(`key ${s.key}`), await post('no secret here')];
    });
    expect(a.status).toBe(200);
    expect(a.headers.get('x-hermes-redacted')).toBe('1');
    expect(b.headers.get('x-hermes-redacted')).toBeNull();
    const id = a.headers.get('x-hermes-conversation-id')!;
    expect(await leaks(h, id, [s.key])).toEqual([]);
    expect(JSON.stringify(h.mock.requests[0]!.messages)).toContain('key [REDACTED:openai-key]');
    expect(JSON.stringify(h.mock.requests)).not.toContain(s.key);
  });
});
