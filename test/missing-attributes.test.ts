// A namespace without Hermes' search attributes (a managed namespace whose workers may not register them), or with
// one registered as another type: the server refuses every workflow task that upserts such an attribute, so a
// conversation would stay Running for good. The start's local activity tells each run which ones its namespace
// lacks; the run sets only the others. Real worker, dev server, two fresh namespaces on it.
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection, type ActivityExecuteInput, type ActivityInboundCallsInterceptor, type Next, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { explained } from '../src/cli/explain-error';
import { Hermes, hermesDataConverter } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { installRuntimeLogger } from '../src/observe/logger';
import { ensureSearchAttributes, indexedValueType } from '../src/startup/register-attributes';
import { AttributeCheck } from '../src/startup/usable-attributes';
import { SEARCH_ATTRIBUTE_TYPES } from '../src/shared/search-attributes';
import { createHermesWorker } from '../src/worker';
import { MockModel, type Reply } from './helpers/mock-model';
import { waitFor } from './helpers/wait';

installRuntimeLogger('ERROR');

const HERMES = Object.keys(SEARCH_ATTRIBUTE_TYPES);
const TEXT = indexedValueType('Text');

interface Space {
  hermes: Hermes;
  client: Client;
  worker: Worker;
  running: Promise<void>;
}

let connection: Connection;
let native: NativeConnection;
let mock: MockModel;
const spaces: Space[] = [];

function workerOptions(namespace: string) {
  return {
    connection: native,
    namespace,
    profiles: { defaultName: 'default', profiles: { default: defineProfile('default', { baseURL: mock.baseURL, model: 'mock' }) } },
    workflowBundle: { codePath: inject('workflowBundlePath') },
    tuning: { debugMode: true },
  };
}

/** A fresh namespace with exactly these custom attributes, and a worker on it. */
async function space(name: string, attributes: Record<string, number>): Promise<Space> {
  await connection.workflowService.registerNamespace({ namespace: name, workflowExecutionRetentionPeriod: msToTs('1 day') });
  // A new namespace reaches every service of the server a moment later.
  await waitFor(
    `namespace ${name}`,
    () =>
      connection.operatorService.listSearchAttributes({ namespace: name }).then(
        () => true,
        () => false,
      ),
    30_000,
  );
  if (Object.keys(attributes).length) await connection.operatorService.addSearchAttributes({ namespace: name, searchAttributes: attributes });
  const client = new Client({ connection, namespace: name, dataConverter: hermesDataConverter() });
  const taskQueue = `missing-attributes-${process.pid}`;
  const hermes = await Hermes.connect({ client, taskQueue });
  const worker = await createHermesWorker({ ...workerOptions(name), taskQueue });
  const s = { hermes, client, worker, running: worker.run() };
  spaces.push(s);
  return s;
}

/** The run's workflow tasks that the server refused, over all its runs. */
async function refusedTasks(client: Client, id: string): Promise<string[]> {
  const refused: string[] = [];
  // From the last run back to the first.
  for (let runId: string | undefined = undefined; ;) {
    const history: History = await client.workflow.getHandle(id, runId).fetchHistory();
    for (const e of history.events ?? []) {
      const f = e.workflowTaskFailedEventAttributes;
      if (f) refused.push(f.failure?.message ?? String(f.cause));
    }
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) return refused;
  }
}

async function attributesOf(handle: WorkflowHandle): Promise<Record<string, unknown>> {
  const d = await handle.describe();
  return Object.fromEntries(HERMES.flatMap((k) => (d.raw.workflowExecutionInfo?.searchAttributes?.indexedFields?.[k] ? [[k, true]] : [])));
}

const answer = (content: string): Reply => ({ content });
const step = (i: number): Reply => ({
  toolCalls: [{ name: 'todo', arguments: { todos: [{ id: String(i), content: `step ${i}`, status: 'completed' }], merge: true } }],
});

let bare: Space;
let wrongType: Space;
let crowded: Space;
beforeAll(async () => {
  const address = inject('temporalAddress');
  connection = await Connection.connect({ address });
  native = await NativeConnection.connect({ address });
  // The conversations share one endpoint: each reply is made from the request (its prompt, the tool results so far).
  const reply: Reply = (req) => {
    const prompt = String(req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
    if (prompt.startsWith('long')) {
      const done = req.messages.filter((m) => m.role === 'tool').length;
      return done < 12 ? step(done) : answer('long done');
    }
    return answer(`answered: ${prompt}`);
  };
  mock = await MockModel.start(Array.from({ length: 100 }, () => reply));
  const suffix = `${process.pid}-${Date.now().toString(36)}`;
  const types = Object.fromEntries(Object.entries(SEARCH_ATTRIBUTE_TYPES).map(([k, t]) => [k, indexedValueType(t)]));
  [bare, wrongType, crowded] = await Promise.all([
    space(`hermes-bare-${suffix}`, {}),
    // HermesStatus as a keyword list (as someone may have created it by hand), the others as Hermes registers them.
    space(`hermes-wrong-${suffix}`, { ...types, HermesStatus: indexedValueType('KeywordList') }),
    // The three Text slots a SQL visibility store gives a namespace, taken by other applications.
    space(`hermes-crowded-${suffix}`, { OtherText1: TEXT, OtherText2: TEXT, OtherText3: TEXT }),
  ]);
}, 60_000);

afterAll(async () => {
  for (const s of spaces) s.worker.shutdown();
  await Promise.all(spaces.map((s) => s.running));
  await mock?.close();
  await native?.close();
  await connection?.close();
});

describe('a namespace without the search attributes', () => {
  it('runs a conversation to its answer, setting none of them', async () => {
    const handle = await bare.hermes.start({ prompt: 'hello there' });
    expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'answered: hello there' });
    expect(await refusedTasks(bare.client, handle.id)).toEqual([]);
    expect(await attributesOf(handle.workflow)).toEqual({});
    expect((await handle.state()).status).toBe('completed');
  });

  it('carries what it learnt across continue-as-new', async () => {
    const handle = await bare.hermes.start({ prompt: 'long task', maxHistoryEvents: 40 });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', answer: 'long done' });
    expect(result.runs).toBeGreaterThan(1);
    expect(await refusedTasks(bare.client, handle.id)).toEqual([]);
  });

  it('ends a bad input as failed instead of leaving it running', async () => {
    const handle = await bare.client.workflow.start('conversationWorkflow', {
      taskQueue: bare.hermes.taskQueue,
      workflowId: `bad-${Date.now().toString(36)}`,
      args: [{ prompt: 'x', tools: 'read_file' }],
    });
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect(await refusedTasks(bare.client, handle.workflowId)).toEqual([]);
  });

  it('keeps a chat waiting for its next message', async () => {
    const chat = await bare.hermes.start({ mode: 'chat' });
    expect(await chat.send('first question')).toMatchObject({ answer: 'answered: first question' });
    expect((await chat.state()).status).toBe('idle');
    expect(await refusedTasks(bare.client, chat.id)).toEqual([]);
    await chat.end();
  });
});

describe('a start whose local activity fails as a whole', () => {
  it('sets none of the attributes, and ends', async () => {
    class BrokenStart implements ActivityInboundCallsInterceptor {
      constructor(private readonly type: string) {}
      execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
        return this.type === 'prepareRun' ? Promise.reject(new Error('the disk is on fire')) : next(input);
      }
    }
    const queue = `broken-start-${Date.now().toString(36)}`;
    const hermes = await Hermes.connect({ client: bare.client, taskQueue: queue });
    const worker = await createHermesWorker({
      ...workerOptions(bare.client.options.namespace),
      taskQueue: queue,
      tuning: { debugMode: true, interceptors: { activity: [(ctx) => ({ inbound: new BrokenStart(ctx.info.activityType) })] } },
    });
    const handle = await hermes.start({ prompt: 'despite it' });
    const result = await worker.runUntil(handle.result());
    expect(result).toMatchObject({ status: 'completed', answer: 'answered: despite it' });
    expect(await refusedTasks(bare.client, handle.id)).toEqual([]);
  });
});

describe('a scheduled task on a namespace without the search attributes', () => {
  it('is registered without HermesSchedule and its firings are found by the schedule id', async () => {
    const name = `report-${Date.now().toString(36)}`;
    const tasks = bare.hermes.schedules;
    const info = await tasks.create({ name, when: '@yearly', prompt: 'scheduled report' });
    expect(info.name).toBe(name);
    await tasks.trigger(name);
    const runs = await waitFor(
      'the firing listed completed',
      async () => {
        const r = await tasks.runs(name);
        return r.some((x) => x.status === 'completed') && r;
      },
      30_000,
    );
    expect(runs.map((r) => [r.status, r.answer])).toEqual([['completed', 'answered: scheduled report']]);
    expect(await refusedTasks(bare.client, runs[0].workflowId)).toEqual([]);
    await tasks.delete(name);
  });
});

describe('a namespace with one attribute of another type', () => {
  // HermesModel is set with HermesStatus whenever the status is published: on a namespace whose HermesStatus is of
  // another type it shows that the status was published, and without that one.
  const published = async (handle: WorkflowHandle) => (await attributesOf(handle)).HermesModel === true;

  it('publishes the status of runs refused before or at their start, and of one cancelled before it', async () => {
    const bad = await wrongType.client.workflow.start('conversationWorkflow', {
      taskQueue: wrongType.hermes.taskQueue,
      workflowId: `bad-${Date.now().toString(36)}`,
      args: [{ prompt: 'x', tools: 'read_file' }],
    });
    const unknown = await wrongType.hermes.start({ prompt: 'x', tools: ['no_such_tool'] });
    await expect(bad.result()).rejects.toThrow();
    expect(await unknown.result()).toMatchObject({ status: 'failed', reason: 'BadInput' });
    // Cancelled before any worker of its task queue saw it: the start's local activity runs in a cancelled scope.
    const queue = `cancelled-early-${Date.now().toString(36)}`;
    const early = await Hermes.connect({ client: wrongType.client, taskQueue: queue });
    const cancelled = await early.start({ prompt: 'x' });
    await cancelled.workflow.cancel();
    const worker = await createHermesWorker({ ...workerOptions(wrongType.client.options.namespace), taskQueue: queue });
    await worker.runUntil(cancelled.workflow.result().catch(() => undefined));
    expect((await cancelled.workflow.describe()).status.name).toBe('CANCELLED');
    for (const handle of [bad, unknown.workflow, cancelled.workflow]) {
      expect(await published(handle)).toBe(true);
      expect(await refusedTasks(wrongType.client, handle.workflowId)).toEqual([]);
    }
  });

  it('sets the others and leaves that one alone', async () => {
    const handle = await wrongType.hermes.start({ prompt: 'typed' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(await refusedTasks(wrongType.client, handle.id)).toEqual([]);
    const set = await attributesOf(handle.workflow);
    // (HermesWaitingFor is null after a run: an attribute set to null is removed.)
    expect(set).toMatchObject({ HermesModel: true, HermesIterations: true });
    expect(set.HermesStatus).toBeUndefined();
  });
});

describe('a namespace with no slot left for one attribute', () => {
  it('gets the others registered, and a run sets those', async () => {
    const ns = crowded.client.options.namespace;
    const warnings: string[] = [];
    const registered = await ensureSearchAttributes(connection, ns, SEARCH_ATTRIBUTE_TYPES, (m) => warnings.push(m));
    expect(registered.added.sort()).toEqual(HERMES.filter((k) => k !== 'HermesSummary').sort());
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`could not register search attribute(s) HermesSummary in namespace ${ns}`);
    // The worker asked at its start, before they were registered: it asks again after a minute; a new worker now.
    const worker = await createHermesWorker({ ...workerOptions(ns), taskQueue: 'crowded-late' });
    const hermes = await Hermes.connect({ client: crowded.client, taskQueue: 'crowded-late' });
    const handle = await worker.runUntil(async () => {
      const h = await hermes.start({ prompt: 'crowded' });
      await h.result();
      return h;
    });
    expect(await refusedTasks(crowded.client, handle.id)).toEqual([]);
    const set = await attributesOf(handle.workflow);
    expect(set).toMatchObject({ HermesStatus: true, HermesModel: true, HermesIterations: true, HermesScope: true });
    expect(set.HermesSummary).toBeUndefined();
  });
});

describe('what the CLI says when a query needs an attribute the namespace lacks', () => {
  it('names the attribute and the command that adds it, and keeps the reason of any other refusal', async () => {
    const refusal = async (query: string) => {
      const err = await (async () => {
        for await (const _ of bare.client.workflow.list({ query })) break;
      })().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.name).toBe('ServiceError');
      return explained(err!).message;
    };
    expect(await refusal('HermesStatus = "completed"')).toBe(
      'this namespace has no search attribute HermesStatus, which this needs: `hermes worker` registers it where it may, ' +
        'or an admin adds it: temporal operator search-attribute create --namespace <namespace> --name HermesStatus --type Keyword',
    );
    expect(await refusal('NoSuchThing = "x"')).toBe('Failed to list workflows: invalid query: invalid search attribute: NoSuchThing');
  });
});

describe("the worker's check", () => {
  const complete = Object.fromEntries(Object.entries(SEARCH_ATTRIBUTE_TYPES).map(([k, t]) => [k, indexedValueType(t)]));

  it('asks again a minute after a namespace lacked some, never after it had them all', async () => {
    let now = 0;
    let answers: Array<Record<string, number>> = [{}, complete];
    let asked = 0;
    const check = new AttributeCheck(
      async () => {
        asked++;
        return answers.shift()!;
      },
      () => now,
    );
    expect(await check.missing()).toEqual(HERMES);
    now = 59_000;
    expect(await check.missing()).toEqual(HERMES);
    expect(asked).toBe(1);
    // Stale: the old answer at once (a run's start does not wait), and asked again for the next run.
    now = 61_000;
    expect(await check.missing()).toEqual(HERMES);
    await new Promise((r) => setImmediate(r));
    expect(await check.missing()).toEqual([]);
    now = 10_000_000;
    answers = [];
    expect(await check.missing()).toEqual([]);
    expect(asked).toBe(2);
  });

  it('says unknown when the namespace does not answer in time', async () => {
    const check = new AttributeCheck(() => new Promise(() => {}), Date.now, 60_000, 20);
    expect(await check.missing()).toBeUndefined();
  });

  it('says unknown when the namespace cannot be asked, and asks once for callers at the same time', async () => {
    let asked = 0;
    const check = new AttributeCheck(async () => {
      asked++;
      throw new Error('permission denied');
    });
    expect(await Promise.all([check.missing(), check.missing(), check.missing()])).toEqual([undefined, undefined, undefined]);
    expect(asked).toBe(1);
  });
});
