// The payload store (src/storage, Temporal External Storage): a continue-as-new carries the whole context by
// reference, so the next run's model sees exactly what the last call of the previous run saw plus that call's
// reply and tool results — even past the 1.5 M characters an inline carry is pruned at — while the history keeps
// a reference of ~100 bytes.
import { Client, Connection } from '@temporalio/client';
import { ExternalStorage, type Payload } from '@temporalio/common';
import { isReferencePayload } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { fetchRunHistories } from '../src/inspect/step-context';
import { FolderStorageDriver } from '../src/storage';
import { decodeStoredValue } from '../src/storage/decode';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';

const PayloadProto = temporal.api.common.v1.Payload;
const payload = (text: string): Payload => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(text)) });

describe('FolderStorageDriver', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores by content, gzipped, and gives back the same payload', async () => {
    const d = new FolderStorageDriver(dir);
    const big = payload('x'.repeat(200_000));
    const [a, b] = await d.store({}, [big, big]);
    expect(a!.claimData.key).toMatch(/^[0-9a-f]{64}$/);
    expect(b!.claimData).toEqual(a!.claimData); // same bytes, one file
    const files = readdirSync(path.join(dir, a!.claimData.key!.slice(0, 2)));
    expect(files).toEqual([`${a!.claimData.key}.gz`]);
    const [back] = await d.retrieve({}, [a!]);
    expect(PayloadProto.encode(back!).finish()).toEqual(PayloadProto.encode(big).finish());
  });

  it('refuses a missing, corrupt or malformed claim with a message that says where it looked', async () => {
    const d = new FolderStorageDriver(dir);
    const [c] = await d.store({}, [payload('to be damaged')]);
    writeFileSync(d.fileOf(c!.claimData.key!), Buffer.from([0x1f, 0x8b, 0, 0])); // not the stored bytes
    await expect(d.retrieve({}, [c!])).rejects.toThrow();
    await expect(d.retrieve({}, [{ claimData: { key: 'f'.repeat(64) } }])).rejects.toThrow(/is not in .*shared volume/);
    await expect(d.retrieve({}, [{ claimData: { key: '../../etc/passwd' } }])).rejects.toThrow(/malformed claim/);
  });
});

describe('continue-as-new with the payload store', () => {
  let h: Harness;
  let dir: string;
  let reader: Client;
  beforeAll(async () => {
    h = await createHarness();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-store-can-'));
    reader = new Client({
      connection: await Connection.connect({ address: inject('temporalAddress') }),
      dataConverter: { externalStorage: store() },
    });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const store = () => new ExternalStorage({ drivers: [new FolderStorageDriver(dir)], payloadSizeThreshold: 64 * 1024 });

  it('carries 1.6 M characters of context by reference: nothing pruned, the next run sees every tool output', async () => {
    const pages = 9;
    for (let i = 0; i < pages; i++) writeFileSync(path.join(h.workspace, `big${i}.txt`), `${`${i}`.repeat(60)}\n`.repeat(3000));
    for (let i = 0; i < pages; i++) h.mock.push(toolCall('read_file', { path: `big${i}.txt`, limit: 5000 }, `c${i}`));
    h.mock.push(answer('read them all'));
    const hermes = await Hermes.connect({ client: reader, taskQueue: h.taskQueue });
    let id = '';
    const result = await h.run(
      async () => {
        const handle = await hermes.start({ prompt: 'read every page', workspace: h.workspace, maxHistoryEvents: 40, toolOutputLimit: 200_000 });
        id = handle.id;
        return handle.result();
      },
      { tuning: { dataConverter: { externalStorage: store() } } },
    );
    expect(result.status, JSON.stringify(result)).toBe('completed');
    expect(result.runs).toBeGreaterThan(2);

    // Each request's context is the previous one plus its reply and tool result: nothing was pruned or rewritten,
    // across every continue-as-new, although the last context is past the inline carry's 1.5 M characters.
    const reqs = h.mock.requests;
    expect(reqs).toHaveLength(pages + 1);
    for (let i = 1; i < reqs.length; i++) expect(reqs[i]!.messages.slice(0, reqs[i - 1]!.messages.length)).toEqual(reqs[i - 1]!.messages);
    expect(JSON.stringify(reqs.at(-1)!.messages).length).toBeGreaterThan(1_500_000);
    for (let i = 0; i < pages; i++) expect(JSON.stringify(reqs.at(-1)!.messages)).toContain(`${i}`.repeat(60));

    // The history holds references where the carry went: the ContinueAsNew commands and the next runs' inputs.
    const runs = await fetchRunHistories(reader, id);
    expect(runs).toHaveLength(result.runs);
    const carries = runs.slice(1).map((r) => r.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![1]! as Payload);
    const refs = carries.filter(isReferencePayload);
    expect(refs.length).toBeGreaterThan(0);
    // Each continued run's handoff (its memo, shown in its details) says whether its state is in the store.
    for (const [i, r] of runs.slice(1).entries()) {
      const runId = r.events![0]!.workflowExecutionStartedEventAttributes!.originalExecutionRunId!;
      const memo = (await reader.workflow.getHandle(id, runId).describe()).memo;
      expect(memo?.hermesContinuedFrom, runId).toMatchObject({ inPayloadStore: isReferencePayload(carries[i]!) });
    }
    for (const p of refs) expect(PayloadProto.encode(p).finish().length).toBeLessThan(300);
    // …and the reference reads back as the carried state, the transcript whole.
    const carried = await decodeStoredValue<{ transcript: { messages: unknown[] } }>(reader.options.loadedDataConverter, refs.at(-1));
    expect(JSON.stringify(carried!.transcript.messages)).toContain('8'.repeat(60));
  }, 120_000);
});
