// `hermes eval` end to end: the real command against the example suite, its conversations run by a worker (in
// this process, cluster mode; or the command's own, embedded mode) whose model is a scripted solver that does the
// right thing for some tasks and the wrong thing for others. Checks what the table, --json and --export say,
// and that with injected faults every run still ends in a classified status and every fault is counted.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import type { EvalReport } from '../src/eval/report';
import { loadSuite } from '../src/eval/suite';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { MockModel, type RecordedRequest, type Reply } from './helpers/mock-model';
import { firstUser } from './helpers/routed-model';
import { freePort, spawnHermes } from './helpers/spawn-hermes';

const SUITE = path.resolve(__dirname, '../examples/eval/suite.json');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'hermes-eval-test-'));
let h: Harness | undefined;
const mocks: MockModel[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
  await h?.close();
  h = undefined;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Plan = Reply[];

/** What a correct agent does for each task of the example suite: its tool calls, then its answer. */
const RIGHT: Record<string, Plan> = {
  'write-file': [toolCall('write_file', { path: 'hello.txt', content: 'Hello, world!\n' }), answer('Wrote hello.txt.')],
  'count-lines': [toolCall('terminal', { command: 'wc -l < server.log' }), answer('37')],
  'fix-function': [
    toolCall('patch', { path: 'mathutil.py', old_string: 'total / (len(values) - 1)', new_string: 'total / len(values)' }),
    toolCall('terminal', { command: 'python3 test_mathutil.py' }),
    answer('Fixed the divisor in mean().'),
  ],
  'csv-to-json': [
    toolCall('read_file', { path: 'people.csv' }),
    toolCall('write_file', {
      path: 'people.json',
      content: '[{"name": "Ada", "age": 36}, {"name": "Grace", "age": 45}, {"name": "Linus", "age": 28}]\n',
    }),
    answer('Wrote people.json.'),
  ],
  'find-todos': [toolCall('terminal', { command: 'grep -rn TODO src | cut -d: -f1,2 > todos.txt' }), answer('Wrote todos.txt.')],
  'rename-variable': [toolCall('terminal', { command: "sed -i 's/\\btmp\\b/total/g' calc.py && python3 calc.py" }), answer('Renamed.')],
  'json-field': [toolCall('read_file', { path: 'config.json' }), answer('5433')],
  dedupe: [toolCall('terminal', { command: 'sort -u names.txt > unique.txt' }), answer('Wrote unique.txt.')],
  'sum-column': [toolCall('read_file', { path: 'sales.csv' }), answer('The total is 1234.')],
  'move-logs': [toolCall('terminal', { command: 'mkdir logs && mv app.log worker.log logs/' }), answer('Moved them.')],
};

/**
 * A stateless solver behind the mock endpoint: the task is recognised by its prompt, and the next step of its plan
 * is the number of tool results so far that did not fail — a failed call (an injected fault) is made again.
 * `plans` may give a task several plans, used in turn by its conversations (a task right once, wrong once).
 */
function solver(plans: Record<string, Plan[]>, prompts: Record<string, string>) {
  const started: Record<string, number> = {};
  const planOf = new Map<string, Plan>();
  return (req: RecordedRequest): Reply => {
    const prompt = firstUser(req);
    const id = Object.keys(prompts).find((k) => prompts[k] === prompt);
    if (!id) throw new Error(`no task with the prompt "${prompt.slice(0, 60)}"`);
    const tools = req.messages.filter((m: { role: string }) => m.role === 'tool') as Array<{ content: string }>;
    // A conversation's first request picks its plan; later ones are told apart by their first assistant call id.
    const firstCall = (
      req.messages.find((m: { role: string; tool_calls?: unknown[] }) => m.role === 'assistant' && m.tool_calls?.length) as
        { tool_calls: Array<{ id: string }> } | undefined
    )?.tool_calls[0]?.id;
    let plan = firstCall ? planOf.get(firstCall) : undefined;
    if (!plan) {
      const list = plans[id]!;
      plan = list[(started[id] = (started[id] ?? -1) + 1) % list.length]!;
    }
    const ok = tools.filter((t) => !String(t.content).startsWith('Error:')).length;
    const step = plan[Math.min(ok, plan.length - 1)]!;
    if (typeof step === 'object' && 'toolCalls' in step && step.toolCalls) {
      // Unique call ids: the plan of a later request is found by the conversation's first one.
      const callId = `call_${id}_${Math.random().toString(36).slice(2, 10)}`;
      if (!firstCall) planOf.set(callId, plan);
      return { toolCalls: step.toolCalls.map((c) => ({ ...c, id: callId })) };
    }
    return step;
  };
}

const prompts = Object.fromEntries(loadSuite(SUITE).tasks.map((t) => [t.id, t.prompt]));

/** A reply function for as many requests as the runs may make. */
function endless(reply: Reply, n = 400): Reply[] {
  return Array.from({ length: n }, () => reply);
}

const clusterEnv = (taskQueue: string) => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: taskQueue });
const TERMINAL = new Set(['completed', 'budget_exhausted', 'interrupted', 'stopped_repeating', 'failed', 'cancelled', 'timeout', 'error']);

describe('hermes eval (cluster mode, the worker in this process)', () => {
  it('prints the table with the right pass/fail per task, the spread over repeats, --json and --export', async () => {
    const plans: Record<string, Plan[]> = Object.fromEntries(Object.entries(RIGHT).map(([k, v]) => [k, [v]]));
    // Wrong every time: the variable renamed to the wrong name (the checks read calc.py).
    plans['rename-variable'] = [[toolCall('terminal', { command: "sed -i 's/\\btmp\\b/acc/g' calc.py" }), answer('Renamed.')]];
    // Wrong once in two: the answer is off by one the first time.
    plans['count-lines'] = [[toolCall('terminal', { command: 'wc -l < server.log' }), answer('36')], RIGHT['count-lines']!];
    h = await createHarness(endless(solver(plans, prompts)));
    const workdir = mkdtempSync(path.join(tmp, 'wd-'));
    const exported = path.join(tmp, 'runs.jsonl');
    const env = clusterEnv(h.taskQueue);
    const args = ['eval', SUITE, '--repeat', '2', '--concurrency', '4', '--workdir', workdir];
    const table = await h.run(() => spawnHermes([...args, '--export', exported], { env, timeoutMs: 180_000 }), { workspaceRoots: [workdir] });
    const why = `exit ${table.code}\n--- stdout\n${table.stdout}\n--- stderr\n${table.stderr}`;
    console.log(`hermes eval (20 runs, 4 at a time) took ${table.ms} ms:\n${table.stdout}`);
    expect(table.code, why).toBe(1); // a run failed
    const row = (task: string) => table.stdout.split('\n').find((l) => l.startsWith(`${task} `)) ?? '';
    for (const task of Object.keys(RIGHT)) {
      if (task === 'rename-variable' || task === 'count-lines') continue;
      expect(row(task), why).toMatch(new RegExp(`^${task}\\s+2/2\\s+100% ±0%`));
    }
    expect(row('rename-variable'), why).toMatch(/^rename-variable\s+0\/2\s+0% ±0%.*check file calc\.py ×2$/);
    expect(row('count-lines'), why).toMatch(/^count-lines\s+1\/2\s+50% ±71%.*check answer$/);
    expect(table.stdout, why).toContain('example: 17/20 passed (85%)');
    expect(table.stdout, why).toContain('injected faults: 0');
    // One progress line per run on stderr.
    expect(table.stderr.split('\n').filter((l) => /^\[\d+\/20\] /.test(l))).toHaveLength(20);

    const lines = readFileSync(exported, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(20);
    type Line = { id: string; status: string; messages: Array<{ role: string; content?: unknown }>; tools: unknown[]; eval: Record<string, unknown> };
    const renamed = lines.find((l) => (l as Line).eval.task === 'rename-variable') as Line;
    expect(renamed.eval).toMatchObject({ status: 'completed', pass: false, answer: 'Renamed.' });
    expect(String(renamed.eval.reason)).toContain('calc.py');
    expect(renamed.id).toMatch(/^eval-example-/);
    expect((renamed.eval.usage as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    // The trajectory, as hermes export writes it: what the model saw and sent, the tools offered.
    expect(renamed.status).toBe('completed');
    expect(renamed.messages.find((m) => m.role === 'user')?.content).toBe(prompts['rename-variable']);
    expect(renamed.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Renamed.' });
    expect(renamed.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
    expect(renamed.tools.length).toBeGreaterThan(0);

    // --json: the same runs, a one-task suite via the CLI again (the report's shape).
    const json = await h.run(() => spawnHermes([...args.slice(0, 2), '--json', '--workdir', workdir, '--quiet'], { env, timeoutMs: 180_000 }), {
      workspaceRoots: [workdir],
    });
    const report = JSON.parse(json.stdout) as EvalReport;
    expect(report.summary.runs).toBe(10);
    expect(report.tasks.find((t) => t.task === 'rename-variable')!.failures).toEqual({ 'check file calc.py': 1 });
    expect(report.runs.every((r) => r.workflowId && TERMINAL.has(r.status))).toBe(true);
    expect(json.stderr).not.toMatch(/^\[\d+\/10\]/m); // --quiet
  }, 240_000);

  it('with --faults 0.2 every run ends in a classified status and every injected fault is counted', async () => {
    const plans = Object.fromEntries(Object.entries(RIGHT).map(([k, v]) => [k, [v]]));
    h = await createHarness(endless(solver(plans, prompts)));
    const workdir = mkdtempSync(path.join(tmp, 'wd-'));
    const injected: Array<{ activity: string; type: string }> = [];
    // The worker injects (a cluster's worker started with HERMES_FAULTS); a fixed seed and eval name make the draws the same every time.
    const faults = { rate: 0.2, seed: 7, onInject: (f: { activity: string; type: string }) => void injected.push(f) };
    const r = await h.run(
      () =>
        spawnHermes(['eval', SUITE, '--faults', '0.2', '--json', '--name', 'faults-test', '--workdir', workdir], {
          env: clusterEnv(h!.taskQueue),
          timeoutMs: 180_000,
        }),
      { workspaceRoots: [workdir], faults },
    );
    const why = `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
    expect(r.stderr, why).toContain('--faults: with a cluster, faults are injected by workers started with HERMES_FAULTS=0.2');
    const report = JSON.parse(r.stdout) as EvalReport;
    console.log(`--faults 0.2: ${JSON.stringify(report.summary.faults)}, ${report.summary.passes}/10 passed, ${r.ms} ms`);
    expect(report.runs).toHaveLength(10);
    for (const run of report.runs) expect(TERMINAL.has(run.status), `${run.task}: ${run.status}`).toBe(true);
    expect(injected.length, why).toBeGreaterThan(0);
    expect(report.summary.faults.total, why).toBe(injected.length);
    const byType: Record<string, number> = {};
    for (const f of injected) byType[f.type] = (byType[f.type] ?? 0) + 1;
    expect(report.summary.faults.byType).toEqual(byType);
    // The solver retries a failed tool call and Temporal retries the model calls: the faults cost time, not results.
    expect(report.summary.passes, why).toBe(10);
    expect(report.faultRate).toBe(0.2);
  }, 240_000);
});

describe('hermes eval (embedded server)', () => {
  it('--faults reaches the in-process worker: faults injected and counted, a YAML suite, a bad suite named', async () => {
    const home = mkdtempSync(path.join(tmp, 'home-'));
    const fixtures = path.resolve(__dirname, '../examples/eval/fixtures');
    const suiteFile = path.join(tmp, 'small.yaml');
    writeFileSync(
      suiteFile,
      [
        'name: small',
        'tasks:',
        '  - id: json-field',
        `    prompt: ${JSON.stringify(prompts['json-field'])}`,
        `    workspace: ${path.join(fixtures, 'json-field')}`,
        '    checks: [{ type: answer, matches: "5433" }]',
        '  - id: write-file',
        `    prompt: ${JSON.stringify(prompts['write-file'])}`,
        '    checks:',
        '      - { type: file, path: hello.txt, contains: "Hello, world!" }',
        '',
      ].join('\n'),
    );
    const mock = await MockModel.start(endless(solver({ 'json-field': [RIGHT['json-field']!], 'write-file': [RIGHT['write-file']!] }, prompts)));
    mocks.push(mock);
    const cliPath = inject('temporalCliPath');
    const env = {
      OPENAI_BASE_URL: mock.baseURL,
      OPENAI_API_KEY: 'sk-test',
      HERMES_MODEL: 'mock-model',
      HERMES_HOME: home,
      ...(cliPath ? { TEMPORAL_CLI_PATH: cliPath } : {}),
      HERMES_TEMPORAL_PORT: String(await freePort()),
      HERMES_UI_PORT: String(await freePort()),
      HERMES_FAULTS_SEED: '3',
    };
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tasks: [{ id: 'x', prompt: 'p', checks: [{ type: 'file', path: 'a', matches: '(' }] }] }));
    const refused = await spawnHermes(['eval', bad], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('tasks[0].checks[0].matches: not a regular expression');

    const r = await spawnHermes(['eval', suiteFile, '--faults', '0.5', '--json', '--name', 'embedded', '--workdir', path.join(tmp, 'emb')], {
      env,
      timeoutMs: 180_000,
    });
    const why = `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
    expect(r.code, why).toBe(0);
    const report = JSON.parse(r.stdout) as EvalReport;
    expect(report.runs.map((x) => [x.task, x.status, x.pass])).toEqual([
      ['json-field', 'completed', true],
      ['write-file', 'completed', true],
    ]);
    expect(report.summary.faults.total, why).toBeGreaterThan(0);
    // The worker's log says so too (embedded mode writes it to HERMES_HOME/worker.log).
    const log = readFileSync(path.join(home, 'worker.log'), 'utf8');
    expect(log.match(/injected fault/g)?.length ?? 0).toBeGreaterThanOrEqual(report.summary.faults.total);
  }, 240_000);
});
