// `npm run bench -- --long [--long-n 10000] [--long-window 128000]`: ours alone, one conversation of N read_file
// steps, each reading a fresh ~2 KB page of a file large enough that no page repeats, on a dev server configured
// as the product starts it (default history limits). Context compression keeps the context within the profile's
// window (a summarising call is answered by the scripted model); continue-as-new moves the conversation to fresh
// runs. Prints and writes to bench/RESULTS.md (the long-run block): every run's history size (server
// historySizeBytes), bytes per step at N next to a 10-step conversation on the same server, time per step over the
// first and the last 5 % of the steps, and the worker's RSS over time.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { Hermes, hermesDataConverter } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../src/shared/defaults';
import { ALL_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { logger } from '../src/observe/logger';
import { createHermesWorker } from '../src/worker';
import { SUMMARISER_SYSTEM } from '../src/workflows/loop/compress-texts';
import { fetchRunHistories } from '../src/inspect/step-context';
import { decodeStoredValue } from '../src/storage/decode';
import { MockModel, type RecordedRequest, type Reply } from '../test/helpers/mock-model';
import type { TemporalExecutable } from '../src/dev-server/temporal-cli';
import { loadavg } from './meter';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

const PayloadProto = temporal.api.common.v1.Payload;

const LINES = 41; // a page of 41 numbered lines of 40 characters ≈ 2 KB of tool output

export interface LongRun {
  n: number;
  window: number;
  runs: Array<{ runId: string; bytes: number; events: number; carryBytes: number }>;
  totalBytes: number;
  bytesPerStep: number;
  short: { n: number; bytesPerStep: number };
  msPerStepStart: number;
  msPerStepEnd: number;
  summaries: number;
  wallSec: number;
  rss: Array<{ atSec: number; mb: number }>;
  carryMaxBytes: number;
  /** JSON characters of each part of the last carried state (parts over 200). */
  carriedParts: Record<string, number>;
  /** Characters of the model request bodies of the long conversation. */
  requestChars: { first: number; max: number; last: number };
  load: string;
}

/** Tool calls until `n` tool results are in the transcript (a summarising call gets a summary). */
function router(n: number, sizes: number[]) {
  return (req: RecordedRequest): Reply => {
    sizes.push(req.raw.length);
    const system = String(req.messages[0]?.content ?? '');
    const user = String(req.messages.find((m) => m.role === 'user')?.content ?? '');
    // Usage as a real server reports it (~4 characters a token): the compression estimate starts from it.
    const usage = { prompt_tokens: Math.ceil(req.raw.length / 4), completion_tokens: 20 };
    req.body = null;
    req.raw = '';
    if (system === SUMMARISER_SYSTEM) {
      req.messages = [];
      return { usage, content: '## Goal\n- read the pages\n## Completed actions\n- read pages in order\n## Remaining work\n- the next pages' };
    }
    const [, total] = user.split('|');
    // The step number is the number of read_file calls the model made; after a compression the transcript has
    // fewer, so count from the offset of the last call instead.
    const last = [...req.messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length);
    const args = last ? JSON.parse(last.tool_calls[0].function.arguments as string) : undefined;
    const done = args ? (args.offset - 1) / LINES + 1 : 0;
    req.messages = [];
    if (done >= Number(total ?? n)) return { usage, content: `done after ${done} pages` };
    return { usage, toolCalls: [{ name: 'read_file', arguments: { path: 'long.txt', offset: done * LINES + 1, limit: LINES } }] };
  };
}

async function historyOf(client: Client, id: string) {
  // The chain of runs as `hermes inspect` walks it (oldest first); a run's id is named by the next run's start.
  const histories = await fetchRunHistories(client, id);
  const startOf = (h: (typeof histories)[number]) => h.events?.[0]?.workflowExecutionStartedEventAttributes;
  const ids = [...histories.slice(1).map((h) => startOf(h)!.continuedExecutionRunId!), (await client.workflow.getHandle(id).describe()).runId];
  const runs: LongRun['runs'] = [];
  for (const [k, h] of histories.entries()) {
    const d = await client.workflow.getHandle(id, ids[k]).describe();
    // The carried state (the second argument) as the history holds it: inline, or a payload-store reference.
    const carry = startOf(h)?.input?.payloads?.[1];
    runs.push({
      runId: d.runId,
      bytes: d.historySize ?? 0,
      events: d.historyLength,
      carryBytes: carry ? PayloadProto.encode(carry).finish().length : 0,
    });
  }
  // What the carried state is made of (JSON characters per part), as the last continue-as-new carried it.
  const last = startOf(histories.at(-1)!)?.input?.payloads?.[1];
  const carried = await decodeStoredValue<Record<string, unknown>>(client.options.loadedDataConverter, last as Payload | undefined);
  const parts = Object.entries(carried ?? {}).map(([k, v]) => [k, JSON.stringify(v).length] as const);
  return { runs, parts: Object.fromEntries(parts.filter(([, n]) => n > 200)) };
}

export async function runLong(
  exe: TemporalExecutable,
  bundle: WorkflowBundleWithSourceMap,
  n: number,
  window: number,
  log: (s: string) => void,
): Promise<LongRun> {
  logger.level = 'warn'; // the per-step lines of 10,000 steps would bury the report
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: exe, searchAttributes: ALL_SEARCH_ATTRIBUTES, extraArgs: ['--log-level', 'error', ...DEV_SERVER_DYNAMIC_CONFIG] },
  });
  const mock = await MockModel.start();
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-long-'));
  const store = mkdtempSync(path.join(os.tmpdir(), 'hermes-long-store-'));
  const pages = n + 10;
  writeFileSync(
    path.join(workspace, 'long.txt'),
    Array.from({ length: pages * LINES }, (_, i) => `line ${i + 1} `.padEnd(40, 'x')).join('\n') + '\n',
  );
  // The store is read when the worker is created: the default folder is the Hermes home; a fresh one here.
  process.env.HERMES_PAYLOAD_STORE ??= store;
  const sizes: number[] = []; // request body characters, in order
  const route = router(n, sizes);
  for (let i = 0; i < n * 2 + 100; i++) mock.push(route);
  const worker = await createHermesWorker({
    connection: env.nativeConnection,
    taskQueue: 'long-run',
    profiles: {
      defaultName: 'default',
      profiles: { default: defineProfile('default', { baseURL: mock.baseURL, model: 'mock-model', contextWindow: window }) },
    },
    workspace,
    workflowBundle: bundle,
  });
  const running = worker.run();
  const rss: LongRun['rss'] = [];
  const t0 = performance.now();
  const sample = () => rss.push({ atSec: Math.round((performance.now() - t0) / 1000), mb: process.memoryUsage().rss / 1024 ** 2 });
  sample();
  const sampler = setInterval(sample, 15_000);
  try {
    const client = new Client({ connection: env.connection, dataConverter: hermesDataConverter() });
    const hermes = await Hermes.connect({ client, taskQueue: 'long-run' });
    // The short reference: 10 steps on the same server and worker.
    const s = await hermes.start({ prompt: `long|10|short`, workspace, maxIterations: 0 });
    const sr = await s.result();
    if (sr.status !== 'completed') throw new Error(`10-step run: ${sr.status} ${sr.error ?? ''}`);
    const { runs: shortRuns } = await historyOf(client, s.id);
    const short = { n: 10, bytesPerStep: shortRuns.reduce((a, r) => a + r.bytes, 0) / 10 };
    log(`10 steps: ${short.bytesPerStep.toFixed(0)} B/step`);

    const before = mock.requests.length;
    const tLong = performance.now();
    const handle = await hermes.start({ prompt: `long|${n}|long`, workspace, maxIterations: 0 });
    const progress = setInterval(
      () => log(`… ${mock.requests.length - before} model calls, ${((performance.now() - tLong) / 1000).toFixed(0)} s`),
      60_000,
    );
    const result = await handle.result().finally(() => clearInterval(progress));
    const wallSec = (performance.now() - tLong) / 1000;
    if (result.status !== 'completed' || result.toolCalls !== n)
      throw new Error(`long run: ${result.status} after ${result.toolCalls} tool calls: ${result.error ?? ''}`);
    const { runs, parts } = await historyOf(client, handle.id);
    const totalBytes = runs.reduce((a, r) => a + r.bytes, 0);
    // Time per step from the model requests of the steps (summarising calls are part of the step they precede).
    const reqs = mock.requests.slice(before);
    const at = reqs.map((r) => r.at);
    const k = Math.max(10, Math.floor(at.length * 0.05));
    const msPerStepStart = (at[k]! - at[0]!) / k;
    const msPerStepEnd = (at.at(-1)! - at.at(-1 - k)!) / k;
    return {
      n,
      window,
      runs,
      totalBytes,
      bytesPerStep: totalBytes / n,
      short,
      msPerStepStart,
      msPerStepEnd,
      summaries: Math.max(0, reqs.length - n - 1),
      wallSec,
      rss,
      carryMaxBytes: Math.max(...runs.map((r) => r.carryBytes)),
      carriedParts: parts,
      requestChars: { first: sizes[before] ?? 0, max: Math.max(...sizes.slice(before)), last: sizes.at(-1) ?? 0 },
      load: loadavg(),
    };
  } finally {
    clearInterval(sampler);
    worker.shutdown();
    await running.catch(() => undefined);
    await mock.close();
    await env.teardown();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(store, { recursive: true, force: true });
  }
}

const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
const mib = (b: number) => `${(b / 1024 ** 2).toFixed(2)} MiB`;

/** The long-run block of bench/RESULTS.md. */
export function longRunReport(r: LongRun, commit: string, when: string): string {
  const biggest = Math.max(...r.runs.map((x) => x.bytes));
  const rssFirst = r.rss[1] ?? r.rss[0]!;
  const rssLast = r.rss.at(-1)!;
  const rssMax = Math.max(...r.rss.map((x) => x.mb));
  return [
    `### The long run: one conversation of ${r.n.toLocaleString('en')} steps (\`npm run bench -- --long\`)`,
    '',
    `Run at ${commit} on ${when}, load ${r.load}; profile window ${r.window.toLocaleString('en')} tokens (compression on), ` +
      `every step a fresh ~2 KB read_file page; default history limits; payload store on.`,
    '',
    '| measure | value | ratio |',
    '|---|---:|---:|',
    `| steps completed | ${r.n.toLocaleString('en')} in ${r.wallSec.toFixed(0)} s | |`,
    `| runs (continue-as-new) | ${r.runs.length} | |`,
    `| largest run's history (historySizeBytes) | ${mib(biggest)} | ${(biggest / (4 * 1024 ** 2)).toFixed(2)} of 4 MiB |`,
    `| largest carried state in a history | ${kib(r.carryMaxBytes)} | |`,
    `| bytes per step at ${r.n.toLocaleString('en')} / at 10 | ${(r.bytesPerStep / 1024).toFixed(2)} / ${(r.short.bytesPerStep / 1024).toFixed(2)} KiB | ${(r.bytesPerStep / r.short.bytesPerStep).toFixed(2)}× |`,
    `| time per step, last 5 % / first 5 % | ${r.msPerStepEnd.toFixed(1)} / ${r.msPerStepStart.toFixed(1)} ms | ${(r.msPerStepEnd / r.msPerStepStart).toFixed(2)}× |`,
    `| summarising model calls | ${r.summaries} | |`,
    `| model request, first / largest / last | ${kib(r.requestChars.first)} / ${kib(r.requestChars.max)} / ${kib(r.requestChars.last)} | |`,
    `| worker process RSS at ${rssFirst.atSec} s / at ${rssLast.atSec} s / max | ${rssFirst.mb.toFixed(0)} / ${rssLast.mb.toFixed(0)} / ${rssMax.toFixed(0)} MiB | ${(rssLast.mb / rssFirst.mb).toFixed(2)}× |`,
    '',
    `The last carried state (JSON characters): ${Object.entries(r.carriedParts)
      .map(([k, v]) => `${k} ${(v / 1024).toFixed(1)} K`)
      .join(', ')}.`,
    '',
    `Runs (history bytes / events / carry bytes): ${r.runs.map((x) => `${kib(x.bytes)}/${x.events}/${kib(x.carryBytes)}`).join(', ')}`,
  ].join('\n');
}
