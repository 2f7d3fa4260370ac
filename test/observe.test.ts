// Observability of a real `hermes worker` process (issue 21, points 1–3): its OTLP/HTTP spans reach a receiver
// started here, its Prometheus endpoint (--metrics-port, here HERMES_METRICS_PORT) serves the runtime's metrics
// and ours, and its stderr carries one JSON line per model step and tool call. A secret planted in the worker's
// environment, the prompt, a file and the model's reply is in no span and no log line, with content capture on.
import { Client, Connection } from '@temporalio/client';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { answer, toolCall } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { rand } from './helpers/random-secrets';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
import { killAllWorkers, startWorkerProcess, workerEnv, type WorkerProcess } from './helpers/worker-process';
import { waitFor } from './helpers/wait';

// One worker process for the file: the metrics test reads the counts the first two runs left.
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  await killAllWorkers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Span {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes: Record<string, unknown>;
  raw: string;
}

/** An OTLP/HTTP receiver (JSON, as @opentelemetry/exporter-trace-otlp-http sends it) keeping every span. */
async function startOtlpReceiver() {
  const spans: Span[] = [];
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody;
      for (const rs of body.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              name: s.name,
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              kind: s.kind,
              attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
              raw: JSON.stringify(s),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { endpoint: `http://127.0.0.1:${port}`, spans, paths };
}

interface OtlpBody {
  resourceSpans?: Array<{
    scopeSpans?: Array<{
      spans?: Array<{
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        kind: number;
        attributes?: Array<{ key: string; value: OtlpValue }>;
      }>;
    }>;
  }>;
}
type OtlpValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
};

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** JSON lines of the worker's output with `event` set (the step lines and the workflow's lifecycle lines). */
function logLines(w: WorkerProcess): Array<Record<string, unknown>> {
  return w
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => typeof r.event === 'string');
}

// Letters only: no credential shape matches it (the OpenAI key rule wants a digit), so only the worker's own
// environment says it is a secret — what a client cannot redact reaches the history, and must stop at the spans.
const secret = `sk-planted-${rand(24, LETTERS)}`;
let mock: MockModel;
let hermes: Hermes;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let worker: WorkerProcess;
let metricsPort: number;
let workspace: string;

beforeAll(async () => {
  // Run 1: two read_file calls, then an answer that quotes the secret. Run 2: a 503, then an answer.
  mock = await MockModel.start([
    toolCall('read_file', { path: 'a.txt' }, 'call_a'),
    toolCall('read_file', { path: 'b.txt' }, 'call_b'),
    answer(`Both files read. The key was ${secret}.`),
    { status: 503, body: { error: { message: 'upstream overloaded, try again later' } } },
    answer('done after the 503'),
  ]);
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  const taskQueue = `observe-${process.pid}-${Date.now().toString(36)}`;
  hermes = await Hermes.connect({ client: new Client({ connection }), taskQueue });
  workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-observe-'));
  writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  writeFileSync(path.join(workspace, 'b.txt'), `beta ${secret}\n`);
  receiver = await startOtlpReceiver();
  metricsPort = await freePort();
  worker = startWorkerProcess(
    workerEnv(
      { address, taskQueue, baseURL: mock.baseURL, workspace },
      {
        HERMES_MODEL: 'mock-model',
        HERMES_LOG_LEVEL: 'info',
        HERMES_LOG_FORMAT: 'json',
        HERMES_METRICS_PORT: String(metricsPort),
        HERMES_METRICS_HOST: '127.0.0.1',
        HERMES_METRICS_VISIBILITY_SEC: '1',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        HERMES_OTEL_CONTENT: '1',
        PLANTED_API_TOKEN: secret,
        HERMES_SANDBOX: 'none',
      },
    ),
    workspace,
    60_000,
  );
  cleanups.push(
    () => mock.close(),
    () => connection.close(),
    () => rmSync(workspace, { recursive: true, force: true }),
  );
  await worker.ready;
}, 120_000);

describe('a traced, metered, logged worker', () => {
  let firstId: string;

  it('exports GenAI spans for a 3-step run, children of the workflow spans in one trace, with no secret in any', async () => {
    const run = await hermes.start({ prompt: `Read a.txt and b.txt; the key is ${secret}`, workspace, tools: ['read_file'] });
    firstId = run.id;
    const result = await run.result();
    expect(result.status).toBe('completed');
    // The workflow's RunWorkflow span ends with the run; the batch processor sends it within a second or two.
    await waitFor(
      'the RunWorkflow span',
      () => receiver.spans.some((s) => s.name === 'RunWorkflow:conversationWorkflow' && s.attributes.workflowId === firstId),
      20_000,
    );
    await waitFor('every chat span', () => receiver.spans.filter((s) => s.name === 'chat mock-model').length >= 3, 20_000);
    expect(receiver.paths.every((p) => p === '/v1/traces')).toBe(true);

    const chats = receiver.spans.filter((s) => s.name === 'chat mock-model');
    const tools = receiver.spans.filter((s) => s.name === 'execute_tool read_file');
    expect(chats).toHaveLength(3);
    expect(tools).toHaveLength(2);
    for (const c of chats) {
      expect(c.kind).toBe(3); // CLIENT
      expect(c.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai_compatible',
        'gen_ai.request.model': 'mock-model',
        'gen_ai.conversation.id': firstId,
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 5,
      });
    }
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons']).sort()).toEqual([['stop'], ['tool_calls'], ['tool_calls']]);
    expect(tools.map((t) => t.attributes['gen_ai.tool.call.id']).sort()).toEqual(['call_a', 'call_b']);
    for (const t of tools)
      expect(t.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'hermes.outcome': 'ok' });

    // One trace: each GenAI span's ancestors are RunActivity → StartActivity → invoke_agent → RunWorkflow.
    const byId = new Map(receiver.spans.map((s) => [s.spanId, s]));
    const ancestors = (s: Span) => {
      const out: string[] = [];
      for (let p = s.parentSpanId && byId.get(s.parentSpanId); p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) out.push(p.name);
      return out;
    };
    for (const s of [...chats, ...tools]) {
      const activity = s.name.startsWith('chat') ? 'callModel' : 'runTool';
      expect(ancestors(s)).toEqual([
        `RunActivity:${activity}`,
        `StartActivity:${activity}`,
        'invoke_agent hermes',
        'RunWorkflow:conversationWorkflow',
      ]);
    }
    expect(new Set([...chats, ...tools].map((s) => s.traceId)).size).toBe(1);
    const turn = receiver.spans.find((s) => s.name === 'invoke_agent hermes')!;
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': firstId,
      'hermes.status': 'completed',
    });

    // Content capture is on: messages are there, redacted.
    expect(chats.some((c) => String(c.attributes['gen_ai.input.messages']).includes('Read a.txt'))).toBe(true);
    expect(tools.some((t) => String(t.attributes['gen_ai.tool.call.result']).includes('beta'))).toBe(true);
    for (const s of receiver.spans) expect(s.raw, s.name).not.toContain(secret);
  });

  it('logs one JSON line per model step and tool call, and the run 503 with its message', async () => {
    const run = await hermes.start({ prompt: 'say done', workspace, tools: ['read_file'] });
    const result = await run.result();
    expect(result.status).toBe('completed');
    const lines = await waitFor('the step lines of both runs', () => {
      const l = logLines(worker).filter((r) => r.event === 'model_step' || r.event === 'tool_call');
      return l.length >= 7 && l;
    });
    const first = lines.filter((l) => l.conversationId === firstId);
    expect(first.map((l) => [l.event, l.outcome].join(' '))).toEqual([
      'model_step ok',
      'tool_call ok',
      'model_step ok',
      'tool_call ok',
      'model_step ok',
    ]);
    for (const l of first.filter((x) => x.event === 'model_step')) {
      expect(l).toMatchObject({
        runId: expect.any(String),
        step: expect.any(Number),
        profile: 'default',
        model: 'mock-model',
        tokensIn: 10,
        tokensOut: 5,
      });
      expect(l.durationMs).toEqual(expect.any(Number));
    }
    expect(first.filter((x) => x.event === 'tool_call').map((l) => [l.tool, l.callId])).toEqual([
      ['read_file', 'call_a'],
      ['read_file', 'call_b'],
    ]);
    const second = lines.filter((l) => l.conversationId === run.id);
    expect(second.map((l) => [l.event, l.outcome, l.attempt].join(' '))).toEqual(['model_step failed 1', 'model_step ok 2']);
    expect(second[0]).toMatchObject({ step: 1, failureType: expect.any(String) });
    expect(String(second[0]!.error)).toContain('upstream overloaded, try again later');
    // The workflow's lifecycle lines (replay-safe logger): start, turn, end, each once.
    const lifecycle = await waitFor('the lifecycle lines', () => {
      const l = logLines(worker).filter((r) => r.workflowId === run.id && ['start', 'turn', 'end'].includes(String(r.event)));
      return l.length >= 4 && l;
    });
    expect(lifecycle.map((l) => l.msg)).toEqual([
      'conversation started',
      'turn 1 started',
      'turn 1 ended: completed',
      'conversation ended: completed',
    ]);
    expect(worker.output()).not.toContain(secret);
  });

  it('serves the runtime metrics and ours on one Prometheus endpoint, with the counts of both runs', async () => {
    const valueIn = (t: string, re: RegExp) => {
      const line = t.split('\n').find((l) => re.test(l));
      return line ? Number(line.trim().split(/\s+/).pop()) : undefined;
    };
    // The gauge counts the whole namespace, which other test files share and fill while this one runs: wait for
    // it to have been counted from visibility at least once (a line per status), not for a value.
    const text = await waitFor('the metrics', async () => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      const t = await res.text();
      const counted = ['waiting', 'running', 'idle'].every(
        (s) => valueIn(t, new RegExp(`^\\w*hermes_conversations\\{(?=.*status="${s}")`)) !== undefined,
      );
      return counted && valueIn(t, /^\w*hermes_model_call_duration_count\{(?=.*outcome="ok")/) === 4 && t;
    });
    const value = (re: RegExp) => valueIn(text, re);
    // The SDK's own worker metrics.
    expect(text).toMatch(/^temporal_activity_execution_latency/m);
    expect(text).toMatch(/^temporal_workflow_completed/m);
    // Ours: 3 + 1 calls ok, one 503, two read_file calls, 4 × (10 in, 5 out) tokens, one retry.
    expect(value(/^\w*hermes_model_calls\{(?=.*outcome="ok")(?=.*profile="default")/)).toBe(4);
    expect(value(/^\w*hermes_model_calls\{(?=.*profile="default")(?!.*outcome="ok")/)).toBe(1);
    expect(value(/^\w*hermes_tool_calls\{(?=.*tool="read_file")(?=.*outcome="ok")/)).toBe(2);
    expect(value(/^\w*hermes_model_tokens\{(?=.*direction="in")/)).toBe(40);
    expect(value(/^\w*hermes_model_tokens\{(?=.*direction="out")/)).toBe(20);
    expect(value(/^\w*hermes_retries\{(?=.*activity="callModel")/)).toBe(1);
    expect(value(/^\w*hermes_model_call_duration_count\{(?=.*outcome="ok")/)).toBe(4);
    expect(value(/^\w*hermes_redactions\{(?=.*where="model")/)).toBeGreaterThanOrEqual(1);
    expect(value(/^\w*hermes_conversations\{(?=.*status="running")/)).toBeGreaterThanOrEqual(0);
    expect(text).not.toContain(secret);
  });
});
