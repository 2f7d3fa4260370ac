// `npm run bench -- --peers [--peers-n 10,50] [--peers-reps 3]`: ours next to the two Temporal agent integrations,
// each the smallest faithful agent doing what ours does in the bench (a model call, one read_file of ~2 KB, N times,
// then an answer), each run by its own worker process against one dev server (configured as the product starts it,
// default history limits: 50 MiB / 51,200 events) and the same scripted model over HTTP, interleaved per N; 3
// conversations per cell below N = 200, else 1. Rewrites the peers block of bench/RESULTS.md (not with --peers-n: that
// only prints). Files: workers.ts (install and start each peer), ours-worker.ts, ai-sdk/ (package folder),
// openai-agents/ (venv), report.ts (the table).
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Hermes } from '../../src/client';
import { temporalExecutable } from '../../src/dev-server/temporal-cli';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../../src/shared/defaults';
import { ALL_SEARCH_ATTRIBUTES } from '../../src/shared/search-attributes';
import { MockModel, type RecordedRequest } from '../../test/helpers/mock-model';
import { PAGE_LINES, route } from '../harness';
import { cpuMsOf, loadavg } from '../meter';
import { writeResults } from '../report';
import { gitCommit, peersReport, type Measured } from './report';
import { startPeer, type Peer, type PeerKey } from './workers';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

/** First model call and model calls per conversation, keyed on the id at the end of the bench prompt. */
class Calls {
  readonly first = new Map<string, number>();
  readonly count = new Map<string, number>();
  reply = (req: RecordedRequest) => {
    const prompt = String(req.messages.find((m) => m.role === 'user')?.content ?? '');
    const id = prompt.split('|')[4] ?? '?';
    if (!this.first.has(id)) this.first.set(id, req.at);
    this.count.set(id, (this.count.get(id) ?? 0) + 1);
    req.raw = ''; // the peers send the whole transcript every call: keep the mock's record small
    return route(req);
  };
}

async function historyOf(env: TestWorkflowEnvironment, id: string, runs: number) {
  // Every run of the chain (ours continues-as-new): run ids from visibility, sizes from describe (persistence).
  for (let attempt = 0; ; attempt++) {
    const execs = [];
    for await (const e of env.client.workflow.list({ query: `WorkflowId = "${id}"` })) execs.push(e);
    if (execs.length >= runs || attempt > 50) {
      const ds = await Promise.all(execs.map((e) => env.client.workflow.getHandle(id, e.runId).describe()));
      return {
        bytes: ds.reduce((a, d) => a + (d.historySize ?? 0), 0),
        events: ds.reduce((a, d) => a + d.historyLength, 0),
        runs: ds.length,
        status: ds.map((d) => d.status.name),
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function runOne(env: TestWorkflowEnvironment, hermes: Hermes, peer: Peer, queue: string, calls: Calls, n: number): Promise<Measured> {
  const id = `peers-${peer.key}-${n}-${Date.now().toString(36)}`;
  const prompt = `bench|page|${n}|0|${id}`;
  const cpu0 = cpuMsOf(peer.pid);
  const t0 = Date.now();
  let runs = 1;
  let error: string | undefined;
  try {
    if (peer.key === 'ours') {
      const r = await (await hermes.start({ id, prompt, maxIterations: 10_000 })).result();
      runs = r.runs;
      if (r.status !== 'completed' || r.toolCalls !== n) error = `${r.status} after ${r.toolCalls} tool calls: ${r.error ?? ''}`;
    } else {
      const type = peer.key === 'ai-sdk' ? 'peerAgent' : 'PeerAgent';
      await env.client.workflow.execute(type, { workflowId: id, taskQueue: queue, args: [prompt], workflowExecutionTimeout: '2 hours' });
    }
  } catch (err) {
    error = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
  }
  const wallMs = Date.now() - t0;
  const cpuMs = cpuMsOf(peer.pid) - cpu0;
  const h = await historyOf(env, id, runs);
  const modelCalls = calls.count.get(id) ?? 0;
  const terminated = h.status.at(-1) === 'TERMINATED';
  const steps = Math.min(n, error ? Math.max(0, modelCalls - 1) : n);
  return {
    peer: peer.key,
    n,
    id,
    steps,
    modelCalls,
    terminatedAt: terminated ? modelCalls : undefined,
    error: error && !terminated ? error : undefined,
    status: h.status.at(-1) ?? '?',
    runs: h.runs,
    historyBytes: h.bytes,
    events: h.events,
    wallMs,
    firstCallMs: (calls.first.get(id) ?? NaN) - t0,
    cpuMs,
  };
}

export async function runPeers(): Promise<void> {
  const started = Date.now();
  const commit = gitCommit(); // before the run: the report names the code that ran
  const sizes = (arg('--peers-n') ?? '10,50,200,1000').split(',').map(Number);
  // Short conversations are noisy: three of each below N = 200 unless told otherwise.
  const repsFor = (n: number) => Number(arg('--peers-reps') ?? (n < 200 ? 3 : 1));
  const load0 = loadavg();
  const say = (line: string) => console.log(`   ${line}`);
  console.log(`peers bench: N = ${sizes.map((n) => `${n} (×${repsFor(n)})`).join(', ')}; load ${load0}`);
  const exe = await temporalExecutable('cli', { install: true });
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: exe, searchAttributes: ALL_SEARCH_ATTRIBUTES, extraArgs: ['--log-level', 'error', ...DEV_SERVER_DYNAMIC_CONFIG] },
  });
  const mock = await MockModel.start();
  const calls = new Calls();
  for (let i = 0; i < 500_000; i++) mock.push(calls.reply);
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-peers-'));
  const lines = Math.max(...sizes) * PAGE_LINES + 100;
  writeFileSync(path.join(workspace, 'page.txt'), Array.from({ length: lines }, (_, i) => `line ${i + 1} `.padEnd(40, 'x')).join('\n') + '\n');
  const address = env.connection.options.address;
  const peers: Peer[] = [];
  const skipped: Array<{ key: PeerKey; skipped: string }> = [];
  const queue = (k: PeerKey) => `peers-${k}`;
  try {
    for (const key of ['ours', 'ai-sdk', 'openai-agents'] as const) {
      const p = await startPeer(key, [address, queue(key), mock.baseURL, workspace], say);
      if ('skipped' in p) {
        skipped.push(p);
        say(`${key}: skipped (${p.skipped})`);
      } else {
        peers.push(p);
        say(`${key}: worker pid ${p.pid} (${p.versions})`);
      }
    }
    const hermes = await Hermes.connect({ client: env.client, taskQueue: queue('ours') });
    // Warm-up: each worker bundles, caches and JITs before anything is measured.
    for (const p of peers) await runOne(env, hermes, p, queue(p.key), calls, 2);
    const results: Measured[] = [];
    for (const n of sizes) {
      for (let rep = 0; rep < repsFor(n); rep++) {
        // Interleaved, the order rotating per rep so no peer always runs on the warmest machine.
        const order = peers.map((_, i) => peers[(i + rep) % peers.length]!);
        for (const p of order) {
          mock.requests.length = 0;
          const m = await runOne(env, hermes, p, queue(p.key), calls, n);
          results.push(m);
          const end = m.terminatedAt ? `terminated at step ${m.terminatedAt}` : m.error ? `failed: ${m.error}` : `${m.steps} steps`;
          say(
            `n=${n} ${p.key}: ${end}, ${(m.historyBytes / 1024).toFixed(1)} KiB history (${m.runs} run(s)), ` +
              `${m.wallMs} ms, first model call ${m.firstCallMs} ms, worker CPU ${m.cpuMs} ms`,
          );
        }
      }
    }
    const cmd = [
      'npm run bench -- --peers',
      ...(arg('--peers-n') ? [`--peers-n ${arg('--peers-n')}`] : []),
      ...(arg('--peers-reps') ? [`--peers-reps ${arg('--peers-reps')}`] : []),
    ];
    const out = peersReport({ commit, command: cmd.join(' '), tookMs: Date.now() - started, load0, load1: loadavg(), peers, skipped, results });
    // A run with other sizes is a smoke run: it does not replace the recorded table.
    if (!arg('--peers-n')) writeResults(out, path.join(__dirname, '..', 'RESULTS.md'), 'peers');
    console.log(`\n${out}`);
  } finally {
    await Promise.all(peers.map((p) => p.stop()));
    await mock.close();
    await env.teardown();
    rmSync(workspace, { recursive: true, force: true });
  }
}
