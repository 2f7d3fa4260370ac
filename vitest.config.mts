import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// Three vitest projects (tiers). A test file belongs to one by what it really needs — read from its source, so a
// new file lands in the right tier without anyone keeping a list:
// - process: spawns `hermes` (bin/hermes.js, helpers/spawn-hermes) or `hermes worker` processes
//   (helpers/worker-process), or starts Temporal servers of its own; crash tests are among them.
// - integration: needs the run's shared dev server or workflow bundle (`inject(...)`, helpers/harness, a
//   TestWorkflowEnvironment, a bundle or replay of its own) and nothing of the above.
// - unit: everything else. No Temporal server, no bundle, no CLI install: `npm run test:unit` runs them alone.
// A file that mixes a few server tests into many pure ones is better split in two (redaction.test.ts and
// redaction-acceptance.test.ts).
// `npm test` runs all three (one dev server for the two that need it); `npm run test:unit` the first,
// `npm run test:integration` / `test:process` the others; `npx vitest list --project unit` shows which files.
// A fourth, `cluster` (test/cluster/, by folder, not by content), runs against the production server of
// deploy/cluster/start.sh (temporal-server on PostgreSQL) and only when asked for: `npm run test:cluster`
// (`--project cluster`). It is not in `npm test`: its server is built from source the first time (~10 min).

type Tier = 'unit' | 'integration' | 'process';

const PROCESS = [
  /\bspawnHermes\b/,
  /\bHERMES_BIN\b/,
  /\bbin\/hermes(\.js)?\b/,
  /\bstartWorkerProcess\b/,
  /\bstartDevServer\b/,
  /\brequireTemporalCli\b/,
];
const INTEGRATION = [
  /\binject\(/,
  /from '\.\/helpers\/harness'/,
  /\bTestWorkflowEnvironment\b/,
  /\bbundleWorkflowCode\b/,
  /\brunReplayHistor(y|ies)\b/,
];

function tierOf(source: string): Tier {
  if (PROCESS.some((re) => re.test(source))) return 'process';
  if (INTEGRATION.some((re) => re.test(source))) return 'integration';
  return 'unit';
}

/** Test files (relative to `root`, `/`-separated) under `dirs`, by tier. */
function testTiers(root: string, dirs = ['test', 'src']): Record<Tier, string[]> {
  const out: Record<Tier, string[]> = { unit: [], integration: [], process: [] };
  for (const file of dirs.flatMap((d) => testFiles(root, d))) {
    out[tierOf(readFileSync(path.join(root, file), 'utf8'))].push(file);
  }
  return out;
}

function testFiles(root: string, dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) return ['node_modules', 'fixtures'].includes(e.name) || rel === CLUSTER_DIR ? [] : testFiles(root, rel);
      return e.name.endsWith('.test.ts') ? [rel] : [];
    });
}

const CLUSTER_DIR = 'test/cluster';
/** The cluster project is defined only when the command line names it (`--project cluster`, as test:cluster does). */
const clusterAsked = process.argv.some((a, i) => a === '--project=cluster' || (a === '--project' && process.argv[i + 1] === 'cluster'));

const tiers = testTiers(fileURLToPath(new URL('.', import.meta.url)));
const serverSetup = ['test/global-setup.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Four test files at a time on two cores, each with its own workers and task queues on one shared server: most
    // of a file's time is spent waiting (on the server, a model call's scripted delay, a spawned CLI), so fewer files
    // leave CPU idle. Back to back on a clean tree: three 424 s at 1.6 cores busy, four 368 s at 1.8 (two left a
    // third of it idle). Tests check the order of events, not stopwatches, so the extra contention slows them
    // without failing them. HERMES_TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.HERMES_TEST_WORKERS) || 4,
    pool: 'forks',
    // A fork runs file after file with its modules loaded once, not a fresh process per file: importing the SDK and
    // src/ anew for every file was a third of the tiers' CPU (import 182 s of 534 s; measured without: unit 25 → 16 s,
    // integration 145 → 117 s, process 333 → 287 s). Files keep their state in their own modules' closures, task
    // queues and temp dirs; a test that changes process.env or a global restores it in its afterAll.
    isolate: false,
    // With files sharing a fork, a Temporal client call that was waiting out a retry backoff when its test closed
    // the connection fires in a later file: the SDK's retry timer (grpc-retry.js) throws "Channel has been shut
    // down" from a timer, outside any test. Only that one is let through; every other stray error fails the run.
    onUnhandledError(error) {
      const retriedAfterClose = /Channel has been shut down/.test(error.message ?? '') && /grpc-retry/.test(error.stack ?? '');
      if (!retriedAfterClose) return;
      console.warn(`ignored: a Temporal client call retried after its connection was closed (${error.message})`);
      return false;
    },
    // Workers the tests start take no workspace checkpoints (src/checkpoints/) unless a test asks for them: a
    // shadow repository per temp workspace would pile up under .hermes/ and cost every file-changing call.
    env: { HERMES_CHECKPOINTS: process.env.HERMES_CHECKPOINTS ?? 'off' },
    projects: [
      { extends: true, test: { name: 'unit', include: tiers.unit, exclude: configDefaults.exclude } },
      { extends: true, test: { name: 'integration', include: tiers.integration, globalSetup: serverSetup } },
      { extends: true, test: { name: 'process', include: tiers.process, globalSetup: serverSetup } },
      // One file at a time: a test there stops and starts the shared server (a restart mid-run).
      ...(clusterAsked
        ? [
            {
              extends: true,
              test: { name: 'cluster', include: [`${CLUSTER_DIR}/*.test.ts`], globalSetup: ['test/cluster/global-setup.ts'], fileParallelism: false },
            },
          ]
        : []),
    ],
  },
});
