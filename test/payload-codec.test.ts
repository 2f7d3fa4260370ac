// The payload codec without a server (HERMES_PAYLOAD_KEY): keys from the environment, exact round trips and
// tampering, the worker codec's markers, the metadata-query answer, and `hermes codec-server`'s HTTP API and CORS.
// Encrypted conversations on a real server, the stock CLI through the codec server, and wrong keys: codec.test.ts.
import { METADATA_ENCODING_KEY, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ENCRYPTED_ENCODING,
  isEncrypted as isEncryptedPayload,
  KEY_ID_METADATA,
  keyIdOf,
  loadPayloadKeys,
  payloadCodec,
  PayloadDecryptError,
  PayloadKeyError,
} from '../src/codec';
import { encryptionNotice } from '../src/codec/marker';
import { answerSchema, parseArgs } from '../src/shared/contract';
import { readUndecodable, UNDECODABLE_ENCODING } from '../src/shared/undecodable';
import { payloadConverter } from '../src/workflows/engine/payload-converter';
import { codecServerFixture } from './helpers/codec-server';

const KEY = randomBytes(32).toString('base64');
const codec = payloadCodec({ HERMES_PAYLOAD_KEY: KEY })!;
const MARK = randomBytes(6).toString('hex');
const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

describe('codec server', () => {
  const { UI, post, url } = codecServerFixture(codec, MARK);

  it('encodes and decodes proto3 JSON payloads; a namespace prefix in the path works; bad bodies are 400', async () => {
    const original = {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: Buffer.from(JSON.stringify({ hi: MARK })).toString('base64'),
    };
    const enc = await post('/default/encode', { payloads: [original] }, { 'x-namespace': 'default' });
    expect(enc.status).toBe(200);
    const encoded = ((await enc.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> }).payloads;
    expect(b64(encoded[0]!.metadata.encoding!)).toBe(ENCRYPTED_ENCODING);
    expect(b64(encoded[0]!.data)).not.toContain(MARK);
    const dec = await post('/decode', { payloads: [...encoded, original] });
    expect(dec.status).toBe(200);
    expect(await dec.json()).toEqual({ payloads: [original, original] });
    expect((await post('/decode', '{not json')).status).toBe(400);
    expect((await post('/decode', { payloads: 'x' })).status).toBe(400);
    const foreign = payloadCodec({ HERMES_PAYLOAD_KEY: randomBytes(32).toString('hex') })!;
    const [alien] = await foreign.encode([{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('1') }]);
    const bad = await post('/decode', {
      payloads: [
        {
          metadata: {
            encoding: Buffer.from(ENCRYPTED_ENCODING).toString('base64'),
            'encryption-key-id': Buffer.from(foreign.keyId).toString('base64'),
          },
          data: Buffer.from(alien!.data!).toString('base64'),
        },
      ],
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain(
      `payload was encrypted with key ${foreign.keyId}, which this process does not have`,
    );
    expect((await fetch(`${url()}/decode`)).status).toBe(405);
    expect((await fetch(`${url()}/other`, { method: 'POST' })).status).toBe(404);
  });

  it('answers the Web UI CORS preflight for its origin, and refuses other origins', async () => {
    const pre = await fetch(`${url()}/decode`, {
      method: 'OPTIONS',
      headers: { origin: UI, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace,authorization' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(UI);
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = (pre.headers.get('access-control-allow-headers') ?? '').split(',').map((x) => x.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['content-type', 'x-namespace', 'authorization']));
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
    // The request itself from the UI carries the CORS header too.
    const r = await post('/decode', { payloads: [] }, { origin: UI });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe(UI);
    expect(await r.json()).toEqual({ payloads: [] });

    const evil = await fetch(`${url()}/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect((await post('/decode', { payloads: [] }, { origin: 'http://evil.example' })).status).toBe(403);
  });
});

describe('keys', () => {
  it('reads keys as base64, hex or a key file; rejects anything else clearly; never echoes a bad key', () => {
    const key = randomBytes(32);
    expect(loadPayloadKeys({})).toBeUndefined();
    expect(loadPayloadKeys({ HERMES_PAYLOAD_KEY: key.toString('base64') })!.current).toEqual({ id: keyIdOf(key), key });
    expect(loadPayloadKeys({ HERMES_PAYLOAD_KEY: key.toString('base64url') })!.current.key).toEqual(key);
    expect(loadPayloadKeys({ HERMES_PAYLOAD_KEY: key.toString('hex').toUpperCase() })!.current.key).toEqual(key);
    expect(loadPayloadKeys({ HERMES_PAYLOAD_KEY: key.toString('hex'), HERMES_PAYLOAD_KEY_ID: 'prod-2026' })!.current.id).toBe('prod-2026');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-key-'));
    writeFileSync(path.join(dir, 'text'), `${key.toString('base64')}\n`);
    writeFileSync(path.join(dir, 'raw'), key);
    expect(loadPayloadKeys({ HERMES_PAYLOAD_KEY_FILE: path.join(dir, 'text') })!.current.key).toEqual(key);
    expect(loadPayloadKeys({ HERMES_PAYLOAD_KEY_FILE: path.join(dir, 'raw') })!.current.key).toEqual(key);
    const old = randomBytes(32);
    expect(
      loadPayloadKeys({ HERMES_PAYLOAD_KEY: key.toString('hex'), HERMES_PAYLOAD_OLD_KEYS: `v1:${old.toString('base64')}, ${old.toString('hex')}` })!
        .old,
    ).toEqual([
      { id: 'v1', key: old },
      { id: keyIdOf(old), key: old },
    ]);
    const bad = (env: NodeJS.ProcessEnv, message: string | RegExp) => {
      expect(() => loadPayloadKeys(env)).toThrow(PayloadKeyError);
      expect(() => loadPayloadKeys(env)).toThrow(message);
    };
    bad(
      { HERMES_PAYLOAD_KEY: 'hunter2-hunter2' },
      'HERMES_PAYLOAD_KEY is not a 32-byte key written as base64 (44 characters) or hex (64 characters)',
    );
    expect(() => loadPayloadKeys({ HERMES_PAYLOAD_KEY: 'hunter2-hunter2' })).not.toThrow(/hunter2/);
    bad({ HERMES_PAYLOAD_KEY: randomBytes(16).toString('base64') }, /not a 32-byte key/);
    bad({ HERMES_PAYLOAD_KEY: randomBytes(31).toString('hex') }, /not a 32-byte key/);
    bad({ HERMES_PAYLOAD_KEY_FILE: path.join(dir, 'missing') }, /HERMES_PAYLOAD_KEY_FILE .*missing: cannot read it/);
    bad({ HERMES_PAYLOAD_KEY: key.toString('hex'), HERMES_PAYLOAD_KEY_FILE: path.join(dir, 'raw') }, 'not both');
    bad({ HERMES_PAYLOAD_KEY_ID: 'x' }, 'HERMES_PAYLOAD_KEY_ID set without HERMES_PAYLOAD_KEY');
    bad({ HERMES_PAYLOAD_OLD_KEYS: key.toString('hex') }, 'HERMES_PAYLOAD_OLD_KEYS set without HERMES_PAYLOAD_KEY');
    bad({ HERMES_PAYLOAD_KEY: key.toString('hex'), HERMES_PAYLOAD_OLD_KEYS: 'nope' }, 'HERMES_PAYLOAD_OLD_KEYS entry 1 is not a 32-byte key');
    bad({ HERMES_PAYLOAD_KEY: key.toString('hex'), HERMES_PAYLOAD_KEY_ID: 'a b' }, /HERMES_PAYLOAD_KEY_ID must be/);
    bad(
      { HERMES_PAYLOAD_KEY: key.toString('hex'), HERMES_PAYLOAD_KEY_ID: 'k', HERMES_PAYLOAD_OLD_KEYS: `k:${old.toString('hex')}` },
      'two different payload keys have the id "k"',
    );
  });

  it('round-trips payloads exactly, passes unencrypted ones through, and refuses tampered ones', async () => {
    const p: Payload = { metadata: { [METADATA_ENCODING_KEY]: Buffer.from('json/plain'), other: Buffer.from('meta') }, data: Buffer.from('{"a":1}') };
    const [e] = await codec.encode([p]);
    expect(Buffer.from(e!.metadata![METADATA_ENCODING_KEY]!).toString()).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(e!.metadata![KEY_ID_METADATA]!).toString()).toBe(codec.keyId);
    // iv + ciphertext of the whole Payload (protobuf, metadata included) + tag.
    expect(e!.data!.length).toBe(12 + temporal.api.common.v1.Payload.encode(p).finish().length + 16);
    const [d] = await codec.decode([e!]);
    expect(Buffer.from(d!.data!).toString()).toBe('{"a":1}');
    expect(Buffer.from(d!.metadata!.other!).toString()).toBe('meta');
    const [again] = await codec.encode([p]);
    expect(Buffer.from(again!.data!).equals(Buffer.from(e!.data!))).toBe(false); // a fresh IV each time
    const [same] = await codec.decode([p]);
    expect(same).toBe(p);
    const tampered = { ...e!, data: Buffer.from(e!.data!) };
    tampered.data[20]! ^= 1;
    await expect(codec.decode([tampered])).rejects.toThrow(`payload failed to decrypt with key ${codec.keyId}: wrong key or corrupted`);
    await expect(codec.decode([{ ...e!, data: Buffer.alloc(5) }])).rejects.toThrow(/wrong key or corrupted/);
  });

  it("a worker's codec turns a workflow payload it cannot decrypt into a marker with key ids only; activity payloads and clients still throw", async () => {
    const foreign = payloadCodec({ HERMES_PAYLOAD_KEY: randomBytes(32).toString('hex') })!;
    const [alien] = await foreign.encode([{ metadata: { [METADATA_ENCODING_KEY]: Buffer.from('json/plain') }, data: Buffer.from(`"${MARK}"`) }]);
    const worker = payloadCodec({ HERMES_PAYLOAD_KEY: KEY }, { markUndecodable: true })!;
    const workflow = { type: 'workflow', namespace: 'default', workflowId: 'w' } as const;
    const [marked] = await worker.decode([alien!], workflow);
    expect(Buffer.from(marked!.metadata![METADATA_ENCODING_KEY]!).toString()).toBe(UNDECODABLE_ENCODING);
    expect(marked!.data).toHaveLength(0);
    expect(readUndecodable(marked!)).toEqual({ keyId: foreign.keyId, reason: 'unknown-key', decoderKeyIds: [codec.keyId] });
    // Same id, other key: the tag fails.
    const sameId = payloadCodec({ HERMES_PAYLOAD_KEY: randomBytes(32).toString('hex'), HERMES_PAYLOAD_KEY_ID: codec.keyId })!;
    const [forged] = await sameId.encode([{ metadata: { [METADATA_ENCODING_KEY]: Buffer.from('json/plain') }, data: Buffer.from('1') }]);
    expect(readUndecodable((await worker.decode([forged!], workflow))[0]!)).toMatchObject({ keyId: codec.keyId, reason: 'wrong-key' });
    // Activity payloads (inputs, results) throw as before: the activity fails with the codec's message.
    await expect(worker.decode([alien!], { type: 'activity', namespace: 'default', isLocal: false })).rejects.toThrow(PayloadDecryptError);
    await expect(codec.decode([alien!], workflow)).rejects.toThrow(PayloadDecryptError);
    // The bundle's converter makes it the contract's marker; an update or query with it is rejected naming both ids.
    const value = payloadConverter.fromPayload(marked!);
    expect(() => parseArgs(answerSchema(), value, 'answer')).toThrow(
      `invalid answer: the argument was encrypted with key id ${foreign.keyId}; this worker has key ids [${codec.keyId}]: start the worker with the same HERMES_PAYLOAD_KEY`,
    );
    expect(JSON.stringify(value)).not.toContain(MARK);
    // What it can decrypt, it still does.
    const [mine] = await codec.encode([{ metadata: { [METADATA_ENCODING_KEY]: Buffer.from('json/plain') }, data: Buffer.from('2') }]);
    expect(Buffer.from((await worker.decode([mine!], workflow))[0]!.data!).toString()).toBe('2');
  });

  it('a metadata-query answer is sent as its definitions in clear with the answer sealed in its metadata; anything else is encrypted whole', async () => {
    const workflow = { type: 'workflow', namespace: 'default', workflowId: 'w' } as const;
    const answerOf = (v: unknown) => ({ metadata: { [METADATA_ENCODING_KEY]: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(v)) });
    const definition = {
      type: 'conversationWorkflow',
      queryDefinitions: [{ name: 'state', description: 'Live state' }],
      signalDefinitions: [],
      updateDefinitions: [],
    };
    const original = answerOf({ definition, currentDetails: `task: ${MARK}` });
    const [sent] = await codec.encode([original], workflow);
    expect(Buffer.from(sent!.metadata![METADATA_ENCODING_KEY]!).toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(sent!.data!).toString())).toEqual({ definition, currentDetails: encryptionNotice(codec.keyId) });
    expect(Buffer.from(sent!.metadata![KEY_ID_METADATA]!).toString()).toBe(codec.keyId);
    expect(JSON.stringify(sent)).not.toContain(MARK);
    const [back] = await codec.decode([sent!]);
    expect(temporal.api.common.v1.Payload.encode(back!).finish()).toEqual(temporal.api.common.v1.Payload.encode(original).finish());
    // Another key cannot open the sealed answer; a client without a key reads the view.
    await expect(payloadCodec({ HERMES_PAYLOAD_KEY: randomBytes(32).toString('hex') })!.decode([sent!])).rejects.toThrow(PayloadDecryptError);
    // Not from a workflow, or not exactly that shape: encrypted whole.
    const notMetadata = [
      answerOf({ definition, currentDetails: 'x', extra: MARK }),
      answerOf({ definition: { ...definition, extra: MARK }, currentDetails: 'x' }),
      answerOf({ definition: { ...definition, queryDefinitions: [{ name: 'state', secret: MARK }] }, currentDetails: 'x' }),
      answerOf({ currentDetails: 'x', definition }),
      { ...original, metadata: { ...original.metadata, other: Buffer.from('1') } },
    ];
    for (const p of notMetadata) expect(isEncryptedPayload((await codec.encode([p], workflow))[0]!)).toBe(true);
    expect(isEncryptedPayload((await codec.encode([original], { type: 'activity', namespace: 'default', isLocal: false }))[0]!)).toBe(true);
    expect(isEncryptedPayload((await codec.encode([original]))[0]!)).toBe(true);
  });
});
