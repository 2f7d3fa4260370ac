// What every scenario runs against: one in-memory dev server, the scripted model, the product worker
// (createHermesWorker with a ContextCache whose hit counts the report reads), a reference worker for the
// bench workflows, and helpers that run one conversation of each kind.
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockModel, type RecordedRequest, type Reply } from '../test/helpers/mock-model';
import { createActivities } from '../src/activities';
import { ContextCache, type ContextStats } from '../src/activities/context';
import { Hermes } from '../src/client';
import { defineProfile, type ProfileSet } from '../src/llm/profiles';
import type { TemporalExecutable } from '../src/dev-server/temporal-cli';
import { DEFAULT_LIMITS, DEV_SERVER_DYNAMIC_CONFIG } from '../src/shared/defaults';
import { ALL_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { resolveTools } from '../src/tools/registry';
import { createHermesWorker } from '../src/worker';
import { createBenchActivities } from './activities';
import type { floorWorkflow, naiveLoopWorkflow } from './workflows';

export const HERMES_QUEUE = 'bench-hermes';
export const BENCH_QUEUE = 'bench-reference';
export const PAGE_LINES = 41; // read_file pages of 41 numbered 40-char lines ≈ 2 KB of tool output

export interface ServerSpec {
  key: 'product' | 'stock';
  label: string;
  args: string[];
}

/** The dev server as `hermes` and the tests start it: transfer queue read up to 200 times a second. */
export const PRODUCT_SERVER: ServerSpec = {
  key: 'product',
  label: `dev server as the product starts it (\`${DEV_SERVER_DYNAMIC_CONFIG.filter((a) => !a.startsWith('--')).join(' ')}\`)`,
  args: DEV_SERVER_DYNAMIC_CONFIG,
};

/** The dev server without dynamic config: every task hand-off waits for the next of 20 transfer-queue reads a second. */
export const STOCK_SERVER: ServerSpec = { key: 'stock', label: 'stock dev server (no dynamic config)', args: [] };

// ---------------------------------------------------------------------------------------------------------
// The scripted model: every request is answered by one stateless router, keyed on the conversation's prompt
// "bench|<kind>|<tool iterations>|<delay ms>|<tag>": a tool call while fewer than <iterations> tool rounds are
// in the transcript, then a final answer. Each conversation therefore follows its own script.

export function route(req: RecordedRequest): Reply {
  const prompt = String(req.messages.find((m) => m.role === 'user')?.content ?? '');
  const [tag, kind, n, delay] = prompt.split('|');
  const done = req.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
  // The mock keeps every request; drop the bodies so the bench process's memory stays the worker's.
  req.body = null;
  req.messages = [];
  if (tag !== 'bench') return { status: 400, body: { error: { message: `not a bench prompt: ${prompt.slice(0, 80)}` } } };
  const delayMs = Number(delay) || 0;
  if (done >= Number(n)) return { content: `done after ${done} tool calls`, delayMs };
  // Different offsets: the same call with the same result three times would trip the repetition detector.
  const args =
    kind === 'page' ? { path: 'page.txt', offset: done * PAGE_LINES + 1, limit: PAGE_LINES } : { path: 'tiny.txt', offset: done + 1, limit: 1 };
  return { toolCalls: [{ name: 'read_file', arguments: args }], delayMs };
}

/** tiny.txt (1000 short lines) and page.txt (10 000 lines of 40 characters) in a fresh workspace. */
export function makeWorkspace(prefix = 'hermes-bench-'): string {
  const workspace = mkdtempSync(path.join(os.tmpdir(), prefix));
  writeFileSync(path.join(workspace, 'tiny.txt'), Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  writeFileSync(path.join(workspace, 'page.txt'), Array.from({ length: 10_000 }, (_, i) => `line ${i + 1} `.padEnd(40, 'x')).join('\n') + '\n');
  return workspace;
}

export const noop = () => undefined;
export const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

// ---------------------------------------------------------------------------------------------------------

export interface Harness {
  server: ServerSpec;
  env: TestWorkflowEnvironment;
  client: Client;
  /** For fetching big histories: the naive loop's history pages exceed gRPC's default 4 MB message limit. */
  historyClient: Client;
  hermes: Hermes;
  mock: MockModel;
  tools: string[];
  profiles: ProfileSet;
  workspace: string;
  bundle: WorkflowBundleWithSourceMap;
  /** The product worker's context cache: `stats` counts context queries vs contexts rebuilt without one. */
  contextCache: ContextCache;
}

/** Starts a dev server with the given config and both workers, runs `fn`, tears everything down. */
export async function withServer<T>(
  server: ServerSpec,
  exe: TemporalExecutable,
  bundle: WorkflowBundleWithSourceMap,
  fn: (h: Harness) => Promise<T>,
): Promise<T> {
  console.log(`== ${server.label}`);
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: exe,
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      extraArgs: [
        '--log-level',
        'error',
        // The naive loop's 200-iteration history is ~45 MB: let it finish so its curve can be measured.
        '--dynamic-config-value',
        'limit.historySize.error=268435456',
        '--dynamic-config-value',
        'limit.historySize.warn=268435456',
        ...server.args,
      ],
    },
  });
  const mock = await MockModel.start();
  const workspace = makeWorkspace();
  const onSigint = () => void Promise.allSettled([mock.close(), env.teardown()]).then(() => process.exit(130));
  process.once('SIGINT', onSigint);
  try {
    for (let i = 0; i < 200_000; i++) mock.push(route);
    const profiles: ProfileSet = {
      defaultName: 'default',
      profiles: { default: defineProfile('default', { baseURL: mock.baseURL, model: 'mock-model' }) },
    };
    const contextCache = new ContextCache();
    const hermesWorker = await createHermesWorker({
      connection: env.nativeConnection,
      taskQueue: HERMES_QUEUE,
      profiles,
      workspace,
      workflowBundle: bundle,
      contextCache,
    });
    // The reference workflows run on a second worker in this process, configured like createHermesWorker.
    const benchWorker = await Worker.create({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue: BENCH_QUEUE,
      workflowBundle: bundle,
      activities: { ...createActivities({ profiles, workspace }), ...createBenchActivities(profiles.profiles.default!) },
      maxConcurrentActivityTaskExecutions: 100,
      maxHeartbeatThrottleInterval: 250,
      defaultHeartbeatThrottleInterval: 250,
      shutdownGraceTime: '5 seconds',
    });
    const running = Promise.all([hermesWorker.run(), benchWorker.run()]);
    const historyConnection = await Connection.connect({
      address: env.connection.options.address,
      channelArgs: { 'grpc.max_receive_message_length': 512 * 1024 * 1024 },
    });
    try {
      const hermes = await Hermes.connect({ client: env.client, taskQueue: HERMES_QUEUE });
      return await fn({
        server,
        env,
        client: env.client,
        historyClient: new Client({ connection: historyConnection }),
        hermes,
        mock,
        tools: resolveTools(undefined).tools,
        profiles,
        workspace,
        bundle,
        contextCache,
      });
    } finally {
      hermesWorker.shutdown();
      benchWorker.shutdown();
      await running.catch(() => undefined);
      await historyConnection.close();
    }
  } finally {
    process.off('SIGINT', onSigint);
    await mock.close();
    await env.teardown();
    rmSync(workspace, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// One conversation of each kind.

let seq = 0;
export const uid = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

export async function runOurs(h: Harness, kind: 'tiny' | 'page', n: number, delayMs = 0, hermes = h.hermes) {
  const id = uid(`ours-${kind}-${n}`);
  const t0 = performance.now();
  const run = await hermes.start({ id, prompt: `bench|${kind}|${n}|${delayMs}|${id}`, maxIterations: 10_000 });
  const result = await run.result();
  const wallMs = performance.now() - t0;
  if (result.status !== 'completed' || result.toolCalls !== n) {
    throw new Error(`our loop ${id}: ${result.status} after ${result.toolCalls} tool calls: ${result.error ?? result.answer}`);
  }
  return { id, wallMs, result };
}

export async function runFloor(h: Harness, activities: number) {
  const id = uid(`floor-${activities}`);
  const t0 = performance.now();
  await h.client.workflow.execute<typeof floorWorkflow>('floorWorkflow', { workflowId: id, taskQueue: BENCH_QUEUE, args: [activities] });
  return { id, wallMs: performance.now() - t0 };
}

export async function runNaive(h: Harness, n: number) {
  const id = uid(`naive-${n}`);
  const t0 = performance.now();
  const r = await h.client.workflow.execute<typeof naiveLoopWorkflow>('naiveLoopWorkflow', {
    workflowId: id,
    taskQueue: BENCH_QUEUE,
    args: [{ prompt: `bench|page|${n}|0|${id}`, tools: h.tools, maxIterations: 10_000, toolOutputLimit: DEFAULT_LIMITS.toolOutputLimit }],
  });
  if (r.iterations !== n + 1) throw new Error(`naive loop ${id}: ${r.iterations} iterations, expected ${n + 1}`);
  return { id, wallMs: performance.now() - t0, result: r };
}

export const fetchHistory = (h: Harness, id: string) => h.historyClient.workflow.getHandle(id).fetchHistory();

// ---------------------------------------------------------------------------------------------------------
// Context cache hit counts over a stretch of conversations.

export interface CacheUse {
  /** Model calls whose context came from a `context` query (a first call whose context was too large to send, mismatches). */
  queries: number;
  /** Model calls whose context was rebuilt from this worker's results and matched the workflow's digest. */
  rebuilt: number;
  /** First calls whose whole context came with them. */
  whole: number;
  conversations: number;
  /** (rebuilt + whole) / all calls. */
  hitRate: number;
  /** Queries beyond the first calls that came without their context (digest mismatches). */
  extraQueries: number;
}

export function cacheWatch(cache: ContextCache) {
  const s0: ContextStats = { ...cache.stats };
  return (conversations: number): CacheUse => {
    const queries = cache.stats.queries - s0.queries;
    const rebuilt = cache.stats.rebuilt - s0.rebuilt;
    const whole = cache.stats.whole - s0.whole;
    const hitRate = (rebuilt + whole) / Math.max(1, rebuilt + whole + queries);
    return { queries, rebuilt, whole, conversations, hitRate, extraQueries: Math.max(0, queries - Math.max(0, conversations - whole)) };
  };
}
