// Encrypted payloads (HERMES_PAYLOAD_KEY): the server stores ciphertext only, `hermes codec-server` lets the stock
// CLI read the same history in clear, a wrong key fails with a clear error, and unencrypted histories still read.
// The codec, its keys and the codec server's HTTP API without a Temporal server: payload-codec.test.ts.
import { Client } from '@temporalio/client';
import { METADATA_ENCODING_KEY } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { Hermes, PayloadKeyMismatchError } from '../src/client';
import {
  AesGcmCodec,
  codecDataConverter,
  ENCRYPTED_ENCODING,
  isEncrypted as isEncryptedPayload,
  keyIdOf,
  payloadCodec,
  PayloadDecryptError,
  workerDataConverter,
} from '../src/codec';
import { encryptionNotice, startMarked } from '../src/codec/marker';
import { HermesEncryption } from '../src/shared/search-attributes';
import { fetchRuns, stepRows } from '../src/inspect/step-context';
import { historiesOf, replayAll } from '../src/inspect/replay';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { codecServerFixture } from './helpers/codec-server';
import { MockModel } from './helpers/mock-model';
import { cleanEnv, HERMES_BIN, spawnHermes } from './helpers/spawn-hermes';
import { killAllWorkers, startWorkerProcess, workerEnv } from './helpers/worker-process';

const exec = promisify(execFile);
const KEY = randomBytes(32).toString('base64');
const codec = payloadCodec({ HERMES_PAYLOAD_KEY: KEY })!;
const converter = codecDataConverter(codec);
const MARK = randomBytes(6).toString('hex');
const PROMPT = `Read notes.txt and tell me the plan PROMPT-${MARK}`;
const TOOL_OUT = `the plan is TOOLOUT-${MARK}`;
const ANSWER = `The plan: ANSWER-${MARK}`;
const MARKERS = [`PROMPT-${MARK}`, `TOOLOUT-${MARK}`, `ANSWER-${MARK}`];

const temporalCli = (...args: string[]) =>
  exec(inject('temporalCliPath'), [...args, '--address', inject('temporalAddress')], { maxBuffer: 64 * 1024 * 1024 });
const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

/** Every payload in a `temporal workflow show -o json` history, with where it was (search attributes flagged). */
function payloadsIn(node: unknown, at = ''): Array<{ at: string; metadata: Record<string, string>; data?: string }> {
  if (Array.isArray(node)) return node.flatMap((n, i) => payloadsIn(n, `${at}[${i}]`));
  if (!node || typeof node !== 'object') return [];
  const o = node as Record<string, unknown>;
  if (o.metadata && typeof o.metadata === 'object' && 'encoding' in (o.metadata as object)) {
    return [{ at, metadata: o.metadata as Record<string, string>, ...(typeof o.data === 'string' ? { data: o.data } : {}) }];
  }
  return Object.entries(o).flatMap(([k, v]) => payloadsIn(v, `${at}.${k}`));
}

let h: Harness;
let encClient: Client;
let id: string;

beforeAll(async () => {
  h = await createHarness([toolCall('read_file', { path: 'notes.txt' }, 'c1'), answer(ANSWER)]);
  writeFileSync(path.join(h.workspace, 'notes.txt'), TOOL_OUT);
  encClient = new Client({ connection: h.client.connection, dataConverter: converter });
  const hermes = await Hermes.connect({ client: encClient, taskQueue: h.taskQueue });
  const result = await h.run(
    async () => {
      const handle = await hermes.start({ prompt: PROMPT });
      id = handle.id;
      return handle.result();
    },
    { tuning: { dataConverter: converter } },
  );
  expect(result).toMatchObject({ status: 'completed', answer: ANSWER });
  // The worker decrypted what it needed: the model saw the prompt and the tool output in clear.
  expect(JSON.stringify(h.mock.requests.at(-1)!.messages)).toContain(`TOOLOUT-${MARK}`);
  expect(JSON.stringify(h.mock.requests[0]!.messages)).toContain(`PROMPT-${MARK}`);
});

afterAll(async () => {
  await h?.close();
});

describe('encrypted payloads in the server', () => {
  it('no payload in `temporal workflow show -o json` decodes to plaintext; all but search attributes and SDK patch markers are binary/encrypted', async () => {
    const { stdout } = await temporalCli('workflow', 'show', '-w', id, '-o', 'json');
    const payloads = payloadsIn(JSON.parse(stdout));
    // Not run through codecs by any SDK: search attribute values (HermesStatus, …) and the SDK's own patch
    // markers (a patch id and a flag).
    // Likewise core's bookkeeping of a local activity (its marker's `data`: sequence, attempt, type, times); the
    // local activity's result is the marker's `result`, which goes through the codec.
    const localActivityMeta = (p: (typeof payloads)[number]) => /markerRecordedEventAttributes\.details\.data\./.test(p.at);
    const sdkOwn = (p: (typeof payloads)[number]) => p.at.includes('.searchAttributes.') || p.at.includes('.patch-data.') || localActivityMeta(p);
    for (const p of payloads.filter((p) => p.at.includes('.patch-data.'))) {
      expect(Object.keys(JSON.parse(b64(p.data!))).sort()).toEqual(['deprecated', 'id']);
    }
    const coreKeys = ['activity_id', 'activity_type', 'attempt', 'backoff', 'complete_time', 'original_schedule_time', 'seq'];
    for (const p of payloads.filter(localActivityMeta)) {
      for (const key of Object.keys(JSON.parse(b64(p.data!)) as object)) expect(coreKeys, p.at).toContain(key);
    }
    // The one payload Hermes leaves in clear on purpose: the notice in the static details (key id only).
    const notice = payloads.filter((p) => p.at.endsWith('.userMetadata.details'));
    expect(notice.map((p) => [b64(p.metadata.encoding!), JSON.parse(b64(p.data!))])).toEqual([['json/plain', encryptionNotice(codec.keyId)]]);
    const encrypted = payloads.filter((p) => !sdkOwn(p) && !notice.includes(p));
    expect(encrypted.length).toBeGreaterThan(5);
    // Summaries (user metadata) go through the codec too.
    expect(encrypted.some((p) => p.at.includes('userMetadata'))).toBe(true);
    for (const p of encrypted) {
      expect(b64(p.metadata.encoding!), p.at).toBe(ENCRYPTED_ENCODING);
      expect(b64(p.metadata['encryption-key-id']!), p.at).toBe(codec.keyId);
    }
    const clear = [stdout, ...payloads.map((p) => b64(p.data ?? ''))].join('\n');
    for (const m of MARKERS) expect(clear).not.toContain(m);
    expect(clear).not.toContain('read_file notes.txt');
  });

  it('an encrypted run says so in clear: HermesEncryption "aes-gcm key <id>" and the notice as static details; a run without a key has neither', async () => {
    const d = await encClient.workflow.getHandle(id).describe();
    expect(d.typedSearchAttributes.get(HermesEncryption)).toBe(`aes-gcm key ${codec.keyId}`);
    expect(await d.staticDetails()).toBe(encryptionNotice(codec.keyId));
    expect(encryptionNotice(codec.keyId)).toContain('hermes codec-server');
    // What the Web UI's filter asks (visibility is updated asynchronously).
    const query = `${HermesEncryption.name} = "aes-gcm key ${codec.keyId}" AND WorkflowId = "${id}"`;
    let listed = 0;
    for (let i = 0; i < 100 && !listed; i++) {
      listed = (await encClient.workflow.count(query)).count;
      if (!listed) await sleep(100);
    }
    expect(listed).toBe(1);

    // Without a key: no marker. With a key and `searchAttributes: false`: the notice only. (No worker runs them.)
    const starts = [
      await h.hermes.start({ prompt: `plain PROMPT-${MARK}`, id: `plain-${MARK}` }),
      await (
        await Hermes.connect({ client: encClient, taskQueue: `nobody-${MARK}` })
      ).start({ prompt: 'x', id: `no-attrs-${MARK}`, searchAttributes: false }),
    ];
    try {
      const [plain, noAttrs] = await Promise.all(starts.map((s) => s.workflow.describe()));
      expect(plain!.typedSearchAttributes.get(HermesEncryption)).toBeUndefined();
      expect(await plain!.staticDetails()).toBeUndefined();
      expect(noAttrs!.typedSearchAttributes.get(HermesEncryption)).toBeUndefined();
      expect(await noAttrs!.staticDetails()).toBe(encryptionNotice(codec.keyId));
    } finally {
      await Promise.all(starts.map((s) => s.workflow.terminate('test over')));
    }
  });

  it("the SDK's metadata query (the Web UI's Queries tab) answers with its definitions in clear, the details only with the key", async () => {
    type Metadata = { definition: { type: string; queryDefinitions: Array<{ name: string }> }; currentDetails: string };
    const query = (c: Client) => c.workflow.getHandle(id).query<Metadata>('__temporal_workflow_metadata');
    const [plain, full] = await h.run(() => Promise.all([query(h.client), query(encClient)]), { tuning: { dataConverter: converter } });
    expect(plain.definition.type).toBe('conversationWorkflow');
    expect(plain.definition.queryDefinitions.map((q) => q.name)).toEqual(expect.arrayContaining(['state', 'context', 'tools']));
    expect(plain.currentDetails).toBe(encryptionNotice(codec.keyId));
    expect(JSON.stringify(plain)).not.toContain(MARK);
    // With the key: the answer as the workflow gave it (its details name the task).
    expect(full.definition).toEqual(plain.definition);
    expect(full.currentDetails).toContain(`PROMPT-${MARK}`);
  });

  it('`hermes codec-server` + the stock CLI --codec-endpoint show the same history in clear', async () => {
    const child = spawn(process.execPath, [HERMES_BIN, 'codec-server', '--port', '0'], {
      env: cleanEnv({ HERMES_PAYLOAD_KEY: KEY }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
          const m = /codec server on (http:\/\/\S+)/.exec(stderr);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`codec-server exited ${code}: ${stderr}`)));
      });
      expect(stderr).toContain(`key ${codec.keyId}`);
      const { stdout } = await temporalCli('workflow', 'show', '-w', id, '-o', 'json', '--codec-endpoint', url);
      const payloads = payloadsIn(JSON.parse(stdout));
      const clear = [stdout, ...payloads.map((p) => b64(p.data ?? ''))].join('\n');
      for (const m of MARKERS) expect(clear).toContain(m);
      expect(payloads.filter((p) => b64(p.metadata.encoding ?? '') === ENCRYPTED_ENCODING)).toEqual([]);
      // The text view too.
      const text = await temporalCli('workflow', 'show', '-w', id, '--detailed', '--codec-endpoint', url);
      expect(text.stdout).toContain(`ANSWER-${MARK}`);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

/** 'wedged' once a workflow task of `workflowId` is on its second attempt (a task failing on every try); polls until `signal`. */
async function wedged(client: Client, workflowId: string, signal: AbortSignal): Promise<'wedged' | undefined> {
  while (!signal.aborted) {
    const d = await client.workflow
      .getHandle(workflowId)
      .describe()
      .catch(() => undefined);
    if ((d?.raw.pendingWorkflowTask?.attempt ?? 0) >= 2) return 'wedged';
    await sleep(100);
  }
  return undefined;
}

/** `hermes run` against the worker below, raced against the conversation's workflow task failing twice. */
async function runUnlessWedged(args: string[], env: Record<string, string>, workflowId: string) {
  const stop = new AbortController();
  try {
    const r = await Promise.race([spawnHermes(args, { env, timeoutMs: 55_000 }), wedged(encClient, workflowId, stop.signal)]);
    if (r === 'wedged' || r === undefined) throw new Error(`${workflowId}: its workflow task failed twice: the conversation is wedged`);
    return r;
  } finally {
    stop.abort();
  }
}

describe('hermes worker with HERMES_PAYLOAD_KEY', () => {
  const taskQueue = `codec-${process.pid}-${Date.now().toString(36)}`;
  const cliEnv = (extra: Record<string, string> = {}) => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: taskQueue, ...extra });
  let mock: MockModel;
  /** A client with the worker's key. */
  let withKey: Hermes;
  beforeAll(async () => {
    mock = await MockModel.start([answer(`WORKER-${MARK}`), answer(`NOKEY-${MARK}`)]);
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-codec-'));
    const w = startWorkerProcess(
      workerEnv(
        { address: inject('temporalAddress'), taskQueue, baseURL: mock.baseURL, workspace },
        { HERMES_PAYLOAD_KEY: Buffer.from(KEY, 'base64').toString('hex') },
      ),
      workspace,
    );
    await w.ready;
    withKey = await Hermes.connect({ client: encClient, taskQueue });
  });
  afterAll(async () => {
    await killAllWorkers();
    await mock?.close();
  });

  it('a worker process configured by the environment runs an encrypted conversation', async () => {
    const run = await withKey.start({ prompt: `hello PROMPT-${MARK}` });
    expect(await run.result()).toMatchObject({ status: 'completed', answer: `WORKER-${MARK}` });
    expect(JSON.stringify(mock.requests[0]!.messages)).toContain(`PROMPT-${MARK}`);
    const { stdout } = await temporalCli('workflow', 'show', '-w', run.id, '-o', 'json');
    const clear = [stdout, ...payloadsIn(JSON.parse(stdout)).map((p) => b64(p.data ?? ''))].join('\n');
    expect(clear).not.toContain(`PROMPT-${MARK}`);
    expect(clear).not.toContain(`WORKER-${MARK}`);
  });

  it('`hermes run` with another key: the conversation ends failed (BadInput, both key ids) in its first workflow task, and the CLI names both keys', async () => {
    const other = randomBytes(32);
    const otherId = keyIdOf(other);
    const runId = `mismatch-${MARK}`;
    const modelCalls = mock.requests.length;
    const r = await runUnlessWedged(['run', '--id', runId, `hello PROMPT-${MARK}`], cliEnv({ HERMES_PAYLOAD_KEY: other.toString('base64') }), runId);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `cannot read the result of conversation ${runId}: it is encrypted with key id ${codec.keyId}, and this client has key ids [${otherId}]`,
    );
    expect(r.stderr).toContain("Run the client with the worker's key");
    // Ended, in its first workflow task: no failed workflow task, nothing asked of the model.
    const handle = encClient.workflow.getHandle(runId);
    expect((await handle.describe()).status.name).not.toBe('RUNNING');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    expect(events.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(mock.requests.length).toBe(modelCalls);
    // With the worker's key, the result says why, naming both key ids and what to do.
    const result = await withKey.get(runId).result();
    expect(result).toMatchObject({ status: 'failed', reason: 'BadInput' });
    expect(result.error).toContain(
      `the input was encrypted with key id ${otherId}; this worker has key ids [${codec.keyId}]: start the worker with the same HERMES_PAYLOAD_KEY as the client`,
    );
    // A worker that answers a query on it replays it as it ran.
    const replayed = await replayAll(historiesOf(encClient, [runId]), {
      workflowBundle: { codePath: inject('workflowBundlePath') },
      dataConverter: workerDataConverter({ HERMES_PAYLOAD_KEY: KEY }),
    });
    expect(replayed.map((x) => x.error)).toEqual([undefined]);
  });

  it('`hermes run` without a key: a clear error naming the key id, HERMES_PAYLOAD_KEY and `hermes codec-server` (not "Unknown encoding")', async () => {
    const runId = `nokey-${MARK}`;
    const r = await runUnlessWedged(['run', '--id', runId, `hi PROMPT-${MARK}`], cliEnv(), runId);
    expect(r.code, r.stderr).toBe(1);
    // The steps (state query) or the result, whichever the CLI could not read first.
    expect(r.stderr).toMatch(
      new RegExp(
        `cannot read the (state \\(the state query\\)|result) of conversation ${runId}: it is encrypted \\(binary/encrypted, key id ${codec.keyId}\\) and this client has no payload key: set HERMES_PAYLOAD_KEY`,
      ),
    );
    expect(r.stderr).toContain('run `hermes codec-server` with that key and set the codec endpoint in the UI');
    expect(r.stderr).not.toContain('Unknown encoding');
    // The worker read the plaintext input: with the key, the conversation completes.
    expect(await withKey.get(runId).result()).toMatchObject({ status: 'completed', answer: `NOKEY-${MARK}` });
  });
});

describe('codec server', () => {
  const { TOKEN, post, url } = codecServerFixture(codec, MARK);

  it('with a token: the CLI with --codec-auth reads in clear; without the token the server answers 401', async () => {
    const { stdout } = await temporalCli('workflow', 'show', '-w', id, '-o', 'json', '--codec-endpoint', url(), '--codec-auth', `Bearer ${TOKEN}`);
    const clear = [stdout, ...payloadsIn(JSON.parse(stdout)).map((p) => b64(p.data ?? ''))].join('\n');
    for (const m of MARKERS) expect(clear).toContain(m);

    const plain = {
      payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"x"').toString('base64') }],
    };
    const none = await post('/decode', plain, { authorization: '' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await post('/decode', plain, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post('/decode', plain)).status).toBe(200);
    // (The stock CLI without --codec-auth retries the 401 until its 10 s deadline and prints no history.)
  });
});

describe('keys', () => {
  it('a client with a wrong key fails with a clear error, not garbage; an old key in HERMES_PAYLOAD_OLD_KEYS still reads', async () => {
    const other = randomBytes(32);
    const read = (c: AesGcmCodec) =>
      new Client({ connection: h.client.connection, dataConverter: codecDataConverter(c) }).workflow.getHandle(id).result();
    // Another key (so another id).
    await expect(read(payloadCodec({ HERMES_PAYLOAD_KEY: other.toString('base64') })!)).rejects.toThrow(
      `payload was encrypted with key ${codec.keyId}, which this process does not have`,
    );
    // A wrong key under the same id: the tag does not verify.
    const sameId = payloadCodec({ HERMES_PAYLOAD_KEY: other.toString('hex'), HERMES_PAYLOAD_KEY_ID: codec.keyId })!;
    await expect(read(sameId)).rejects.toThrow(`payload failed to decrypt with key ${codec.keyId}: wrong key or corrupted`);
    await expect(read(sameId)).rejects.toBeInstanceOf(PayloadDecryptError);
    // Rotation: a new current key, the old one kept for decoding.
    const rotated = payloadCodec({ HERMES_PAYLOAD_KEY: other.toString('base64'), HERMES_PAYLOAD_OLD_KEYS: ` ${KEY} ` })!;
    expect(rotated.keyId).toBe(keyIdOf(other));
    expect(await read(rotated)).toMatchObject({ answer: ANSWER });
    // Hermes' own handle says what it means, the codec's error kept as the cause.
    const hermes = await Hermes.connect({
      client: new Client({ connection: h.client.connection, dataConverter: codecDataConverter(sameId) }),
      taskQueue: h.taskQueue,
    });
    const err = await hermes
      .get(id)
      .result()
      .then(
        () => undefined,
        (e: unknown) => e as PayloadKeyMismatchError,
      );
    expect(err).toBeInstanceOf(PayloadKeyMismatchError);
    expect(err!.message).toContain(
      `cannot read the result of conversation ${id}: it names key id ${codec.keyId}, and this client's key with that id does not decrypt it`,
    );
    expect(err!.cause).toBeInstanceOf(PayloadDecryptError);
    expect(err).toMatchObject({ type: 'PayloadKey', writerKeyIds: [codec.keyId], clientKeyIds: [codec.keyId] });
  });

  it('hermes inspect decrypts with the key (API and CLI), and says the history is encrypted without it', async () => {
    const rows = stepRows(await fetchRuns(encClient, id));
    expect(rows.map((r) => `${r.kind}:${r.name}`)).toEqual(['model:model mock-model', 'tool:read_file', 'model:model mock-model']);
    expect(JSON.stringify(rows[1]!.output)).toContain(`TOOLOUT-${MARK}`);
    await expect(fetchRuns(h.client, id)).rejects.toThrow(/is encrypted \(binary\/encrypted payloads\): set HERMES_PAYLOAD_KEY/);

    const address = inject('temporalAddress');
    const ok = await spawnHermes(['inspect', id, '--json'], { env: { TEMPORAL_ADDRESS: address, HERMES_PAYLOAD_KEY: KEY } });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as Array<{ name: string }>).map((r) => r.name)).toEqual(['model mock-model', 'read_file', 'model mock-model']);
    const without = await spawnHermes(['inspect', id], { env: { TEMPORAL_ADDRESS: address } });
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('is encrypted');
    const bad = await spawnHermes(['inspect', id], { env: { TEMPORAL_ADDRESS: address, HERMES_PAYLOAD_KEY: 'sk-not-a-key' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('HERMES_PAYLOAD_KEY is not a 32-byte key written as base64 (44 characters) or hex (64 characters)');
    expect(bad.stderr).not.toContain('sk-not-a-key');
  });

  it('replay: the encrypted history replays with the codec (not without), and unencrypted fixtures replay with it', async () => {
    const workflowBundle = { codePath: inject('workflowBundlePath') };
    const withKey = await replayAll(historiesOf(encClient, [id]), { workflowBundle, dataConverter: converter });
    expect(withKey).toHaveLength(1);
    expect(withKey[0]!.error).toBeUndefined();
    const withoutKey = await replayAll(historiesOf(encClient, [id]), { workflowBundle });
    expect(withoutKey[0]!.error).toBeDefined();
    // `hermes replay` takes the key from the environment.
    const cli = await spawnHermes(['replay', id], { env: { TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_PAYLOAD_KEY: KEY } });
    expect(cli.stdout).toContain('1 of 1 run(s) replay');
    expect(cli.code).toBe(0);

    const file = path.resolve('test/fixtures/histories/tool-round-trip.json');
    const history = historyFromJSON(JSON.parse(readFileSync(file, 'utf8')));
    const workflowId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId || 'tool-round-trip';
    const r = await Worker.runReplayHistory({ workflowBundle, dataConverter: converter }, history, workflowId);
    expect(r).toBeUndefined();
  });

  it('the codec leaves exactly the notice in clear; startMarked starts without HermesEncryption when the namespace lacks it', async () => {
    const json = (v: unknown) => ({ metadata: { [METADATA_ENCODING_KEY]: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(v)) });
    const notice = json(encryptionNotice(codec.keyId));
    expect((await codec.encode([notice]))[0]).toBe(notice);
    for (const near of [
      json(encryptionNotice('other')),
      json(`${encryptionNotice(codec.keyId)} `),
      { ...notice, metadata: { ...notice.metadata, x: Buffer.from('1') } },
    ]) {
      expect(isEncryptedPayload((await codec.encode([near]))[0]!)).toBe(true);
    }

    const client = new Client({ connection: h.client.connection, dataConverter: converter });
    const seen: unknown[] = [];
    const refused = Object.assign(new Error('Failed to start Workflow'), {
      cause: { code: 3, details: 'Namespace default has no mapping defined for search attribute HermesEncryption' },
    });
    const started = await startMarked(client, true, async (marker) => {
      seen.push(marker);
      if (seen.length === 1) throw refused;
      return 'started';
    });
    expect(started).toBe('started');
    expect(seen).toEqual([
      { staticDetails: encryptionNotice(codec.keyId), typedSearchAttributes: [{ key: HermesEncryption, value: `aes-gcm key ${codec.keyId}` }] },
      { staticDetails: encryptionNotice(codec.keyId) },
    ]);
    // Any other refusal is the caller's.
    await expect(startMarked(client, true, () => Promise.reject(new Error('other')))).rejects.toThrow('other');
    expect(await startMarked(h.client, true, async (marker) => marker)).toEqual({});
  });

  it('without a key: no codec (only the payload store, when on); hermes codec-server refuses to start', async () => {
    const { dataConverter } = await import('../src/codec');
    expect(dataConverter({ HERMES_PAYLOAD_STORE: 'off' })).toBeUndefined();
    const local = dataConverter({});
    expect(local?.payloadCodecs).toBeUndefined();
    expect(local?.externalStorage).toBeDefined();
    const r = await spawnHermes(['codec-server', '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('hermes codec-server needs the payload key');
  });
});
