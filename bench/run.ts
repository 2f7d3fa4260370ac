// `npm run bench`: orchestration overhead, history growth and throughput of the agent loop, each next to a
// reference (engine floor / naive loop), on an in-memory Temporal dev server configured as the product starts
// it (DEV_SERVER_DYNAMIC_CONFIG); scenarios 1 and 3 are repeated on a stock dev server for reference.
//   npm run bench                  full run; rewrites the results block of bench/RESULTS.md
//   npm run bench -- --quick       smaller smoke run that only prints
//   npm run bench -- --no-stock    skip the stock dev server
//   npm run bench -- --peers       ours next to @temporalio/ai-sdk and the OpenAI Agents SDK on Temporal (bench/peers/run.ts)
//   npm run bench -- --long        one conversation of 10,000 steps (--long-n N, --long-window TOKENS, default 128000; bench/long-run.ts)
//   npm run bench -- --cluster     scale-out on the production server: 1, 2, 4 worker processes × 200 conversations × 10 steps
//                                  (--cluster-conversations N, --cluster-steps N, --cluster-workers 1,2,4, --cluster-checkpoints;
//                                  bench/cluster.ts)
//   npm run bench -- --soak        30 minutes, 100 conversations in flight, workers SIGKILLed, a server restart; not in CI
//                                  (--soak-minutes M; bench/soak.ts)
// Files: harness.ts (server, workers, mock model), overhead.ts, growth.ts, throughput.ts (the scenarios),
// report.ts (the results block), meter.ts (CPU and RSS), history.ts (reading histories).
import { bundleWorkflowCode } from '@temporalio/worker';
import { bundleOptions } from '../src/startup/bundle';
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installRuntimeLogger } from '../src/observe/logger';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { scenarioGrowth } from './growth';
import { PRODUCT_SERVER, STOCK_SERVER, withServer } from './harness';
import { loadavg } from './meter';
import { scenarioInstrumented, scenarioOverhead } from './overhead';
import { f1, f2, kb, mb, report, writeResults, type Machine, type Results } from './report';
import { scenarioMemory } from './memory';
import { scenarioThroughput } from './throughput';
import { runPeers } from './peers/run';
import { longRunReport, runLong } from './long-run';
import { runCluster, scaleOptions } from './cluster';
import { runSoak, soakOptions } from './soak';

installRuntimeLogger('ERROR');

const quick = process.argv.includes('--quick');
const withStock = !process.argv.includes('--no-stock');
const S1 = { runs: quick ? 1 : 5, stockRuns: 1, iterations: quick ? 20 : 50 };
const S2 = { sizes: quick ? [10, 50] : [10, 50, 200] };
const S3 = { conversations: quick ? 20 : 100, iterations: 10, delayMs: 50 };
const INSTRUMENTED = { conversations: quick ? 1 : 3 };
const S4 = { conversations: quick ? 100 : 300 };

function machine(): Machine {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? '?';
  let nproc = String(os.availableParallelism());
  try {
    nproc = execSync('nproc').toString().trim();
  } catch {
    // keep Node's count
  }
  return { cpu, nproc, mem: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`, node: process.version, temporal: '?', load0: loadavg() };
}

const say = (line: string) => console.log(`   ${line}`);

async function main() {
  const started = Date.now();
  const mach = machine();
  console.log(`bench on ${mach.nproc} × ${mach.cpu}, ${mach.mem}, node ${mach.node}${quick ? ' (quick)' : ''}; load ${mach.load0}`);
  const exe = await temporalExecutable('cli', { install: true });
  if (exe.type === 'existing-path') {
    try {
      mach.temporal = execSync(`"${exe.path}" --version`).toString().trim();
    } catch {
      // keep '?'
    }
  }
  const bundle = await bundleWorkflowCode(bundleOptions(path.join(__dirname, 'workflows-entry.ts')));

  const product = await withServer(PRODUCT_SERVER, exe, bundle, async (h) => {
    console.log('1. orchestration overhead per iteration …');
    const s1 = await scenarioOverhead(h, S1.runs, S1.iterations);
    say(
      `ours ${f2(s1.oursIter)} ms/iteration, floor ${f2(s1.floorPair)} ms/2 activities → ${f2(s1.ratio)}×; ` +
        `context cache hit rate ${(100 * s1.contextCache.hitRate).toFixed(1)} %`,
    );
    console.log('   inside the activities …');
    const inst = await scenarioInstrumented(h, INSTRUMENTED.conversations, S1.iterations);
    say(
      `context get ${f2(inst.rebuiltGet)} ms rebuilt / ${f2(inst.queryGet)} ms queried, callModel handler ${f2(inst.callModel)} ms, ` +
        `runTool handler ${f2(inst.runTool)} ms`,
    );
    // Before scenario 2: the naive loop's 45 MB histories would inflate the bench process's and the server's RSS.
    console.log('3. throughput …');
    const s3 = await scenarioThroughput(h, S3.conversations, S3.iterations, S3.delayMs, s1.tool.exec);
    say(
      `${s3.C}×${s3.N}: ${f1(s3.wallMs)} ms (ideal ${f1(s3.ideal)} ms → ${f2(s3.ratio)}×), floor ${f1(s3.floorWallMs)} ms, ` +
        `local-activity floor ${f1(s3.localFloorWallMs)} ms, without Temporal ${f1(s3.directWallMs)} ms, ` +
        `peak RSS ${mb(s3.ours.peak)}, context cache hit rate ${(100 * s3.contextCache.hitRate).toFixed(1)} %`,
    );
    // In fresh processes of its own (bench/memory-child.ts): nothing else's heap hides growth there.
    console.log('4. memory per cached conversation …');
    const s4 = await scenarioMemory(h, S4.conversations);
    say(`${s4.N} idle chats: ${kb(s4.oursPerConversation)} each; SDK alone (idle workflow): ${kb(s4.floorPerWorkflow)} each`);
    console.log('2. history bytes per iteration …');
    const s2 = await scenarioGrowth(h, S2.sizes, say);
    return { label: PRODUCT_SERVER.label, s1, inst, s2, s3, s4 };
  });

  let stock: Results['stock'];
  if (withStock) {
    stock = await withServer(STOCK_SERVER, exe, bundle, async (h) => {
      console.log('1. orchestration overhead per iteration …');
      const s1 = await scenarioOverhead(h, S1.stockRuns, S1.iterations);
      say(`ours ${f2(s1.oursIter)} ms/iteration, floor ${f2(s1.floorPair)} ms/2 activities → ${f2(s1.ratio)}×`);
      console.log('3. throughput …');
      const s3 = await scenarioThroughput(h, S3.conversations, S3.iterations, S3.delayMs, s1.tool.exec);
      say(`${s3.C}×${s3.N}: ${f1(s3.wallMs)} ms (${f2(s3.ratio)}×), floor ${f1(s3.floorWallMs)} ms`);
      return { s1, s3 };
    });
  }

  const out = report({
    command: ['npm run bench', ...(quick || !withStock ? ['--'] : []), ...(quick ? ['--quick'] : []), ...(withStock ? [] : ['--no-stock'])].join(' '),
    tookMs: Date.now() - started,
    mach,
    bundleBytes: bundle.code.length,
    product,
    stock,
  });
  // A smoke run does not replace the recorded results.
  if (!quick) writeResults(out);
  console.log(`\n${out}`);
}

async function long() {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const n = arg('--long-n') ?? 10_000;
  const window = arg('--long-window') ?? 128_000;
  const exe = await temporalExecutable('cli', { install: true });
  const bundle = await bundleWorkflowCode(bundleOptions());
  console.log(`long run: ${n} steps, window ${window} tokens; load ${loadavg()}`);
  const r = await runLong(exe, bundle, n, window, say);
  const commit = execSync('git rev-parse --short HEAD').toString().trim();
  const block = longRunReport(r, commit, new Date().toISOString().slice(0, 16).replace('T', ' '));
  console.log(block);
  // One block per window (the default 128,000 and the 32,000 the run used); a shorter run only prints.
  if (n === 10_000) writeResults(block, undefined, `long-${window}`);
}

const has = (flag: string) => process.argv.includes(flag);
// The cluster runs exit when done: the SDK's native runtime keeps a handle open after the last connection closes.
const clusterRun = (run: Promise<void>) => run.then(() => process.exit(0));
(has('--peers')
  ? runPeers()
  : has('--long')
    ? long()
    : has('--cluster')
      ? clusterRun(runCluster(scaleOptions(process.argv), say))
      : has('--soak')
        ? clusterRun(runSoak(soakOptions(process.argv), say))
        : main()
).catch((err) => {
  console.error(err);
  process.exit(1);
});
