// An approve, answer or send that reaches a conversation as it ends gets the refusal its validator would have
// given, not the engine's "workflow update was aborted by closing workflow" (src/late-updates.ts). The race is
// made deterministic: the worker's codec holds the encoding of the run's result — the last workflow task is
// then in flight — until the server has admitted the updates; the run then closes under them.
import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { answer, createHarness, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';

let h: Harness | undefined;
let steerConnection: Connection | undefined;
afterEach(async () => {
  await h?.close();
  await steerConnection?.close();
  h = steerConnection = undefined;
});

/** A worker codec that holds back the workflow result that carries `answer` until `open()`. */
function resultGate(answer: string) {
  let reached!: () => void;
  let open!: () => void;
  const atResult = new Promise<void>((r) => (reached = r));
  const opened = new Promise<void>((r) => (open = r));
  const isResult = (p: Payload) => {
    const text = Buffer.from(p.data ?? []).toString('utf8');
    return text.startsWith('{"status":"') && text.includes(`"answer":"${answer}"`);
  };
  const codec: PayloadCodec = {
    async encode(ps) {
      if (ps.some(isResult)) {
        reached();
        await opened;
      }
      return ps;
    },
    async decode(ps) {
      return ps;
    },
  };
  return { codec, atResult, open };
}

/** A Hermes client whose updates carry known ids (`late-1`, `late-2`, …), so the test can ask the server about them. */
async function steeringClient(): Promise<Hermes> {
  steerConnection = await Connection.connect({ address: inject('temporalAddress') });
  let n = 0;
  const ids: WorkflowClientInterceptor = { startUpdate: (input, next) => next({ ...input, options: { ...input.options, updateId: `late-${++n}` } }) };
  return Hermes.connect({ client: new Client({ connection: steerConnection, interceptors: { workflow: [ids] } }) });
}

/** Resolves once the server has admitted update `updateId` of `workflowId` (it waits for the next workflow task). */
async function admitted(client: Client, workflowId: string, updateId: string): Promise<void> {
  const stage = temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED;
  await waitFor(`update ${updateId} admitted`, () =>
    client.workflowService
      .pollWorkflowExecutionUpdate({
        namespace: 'default',
        updateRef: { workflowExecution: { workflowId }, updateId },
        waitPolicy: { lifecycleStage: stage },
      })
      .then(
        () => true,
        () => false,
      ),
  );
}

/** The messages of an error and its causes, outermost first. */
function chain(err: unknown): string[] {
  const out: string[] = [];
  for (let e = err as Error | undefined; e; e = e.cause as Error | undefined) out.push(e.message);
  return out;
}

describe('updates that reach a conversation as it ends', () => {
  it('approve and answer sent while the last workflow task runs get "nothing pending", not the engine abort', async () => {
    h = await createHarness([answer('closing task')]);
    const gate = resultGate('closing task');
    const harness = h;
    const steer = await steeringClient();
    const out = await h.run(
      async () => {
        const handle = await harness.hermes.start({ prompt: 'end while steered' });
        await gate.atResult;
        const late = steer.get(handle.id);
        const approve = late.approve('t1').catch((e: Error) => e);
        await admitted(harness.client, handle.id, 'late-1');
        const answered = late.answer('too late').catch((e: Error) => e);
        await admitted(harness.client, handle.id, 'late-2');
        gate.open();
        return { approve: await approve, answered: await answered, result: await handle.result() };
      },
      { tuning: { dataConverter: { payloadCodecs: [gate.codec] } } },
    );
    expect(out.result.status).toBe('completed');
    expect(out.approve).toBeInstanceOf(Error);
    expect((out.approve as Error).message).toBe('no approval is pending');
    expect((out.answered as Error).message).toBe('no question is pending: nothing to answer');
    // The race happened: the server aborted both because the run closed (the engine's error is kept as the cause).
    for (const e of [out.approve, out.answered]) expect(chain(e).at(-1)).toMatch(/closing workflow/);
    h.mock.assertDone();
  });

  it('a chat message sent while an ended chat closes gets "the conversation has ended"', async () => {
    h = await createHarness([answer('last turn')]);
    const gate = resultGate('last turn');
    const harness = h;
    const steer = await steeringClient();
    const out = await h.run(
      async () => {
        const chat = await harness.hermes.start({ mode: 'chat', prompt: 'hello' });
        await chat.end('done');
        await gate.atResult;
        const sent = steer
          .get(chat.id)
          .send('one more')
          .catch((e: Error) => e);
        await admitted(harness.client, chat.id, 'late-1');
        gate.open();
        return { sent: await sent, result: await chat.result() };
      },
      { tuning: { dataConverter: { payloadCodecs: [gate.codec] } } },
    );
    expect(out.result.answer).toBe('last turn');
    expect((out.sent as Error).message).toBe('the conversation has ended');
    expect(chain(out.sent).at(-1)).toMatch(/closing workflow/);
    h.mock.assertDone();
  });

  it('after the close: the same refusal; a conversation that never existed is still "not found"', async () => {
    h = await createHarness([answer('closed already')]);
    const harness = h;
    const out = await h.run(async () => {
      const handle = await harness.hermes.start({ prompt: 'closed then steered' });
      const result = await handle.result();
      const approve = await handle.approve('t1').catch((e: Error) => e);
      const answered = await handle.answer('late').catch((e: Error) => e);
      const unknown = await harness.hermes
        .get('no-such-conversation')
        .approve('t1')
        .catch((e: Error) => e);
      return { result, approve, answered, unknown };
    });
    expect(out.result.status).toBe('completed');
    expect((out.approve as Error).message).toBe('no approval is pending');
    expect((out.answered as Error).message).toBe('no question is pending: nothing to answer');
    expect((out.unknown as Error).name).toBe('WorkflowNotFoundError');
    h.mock.assertDone();
  });
});
