// The pure parts of `hermes eval`: suite validation, checks, the report's numbers and table, counting injected
// faults in a history, HERMES_FAULTS. No server.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { faultsFromEnv, INJECTED_PREFIX } from '../src/activities/faults';
import { runChecks } from '../src/eval/checks';
import { countInjectedFaults } from '../src/eval/fault-count';
import { buildReport, formatReport, stat } from '../src/eval/report';
import { resultWithin, type RunRecord } from '../src/eval/run';
import { loadSuite, parseSuite } from '../src/eval/suite';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'hermes-eval-unit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const task = (o: object = {}) => ({ id: 't1', prompt: 'do it', checks: [{ type: 'answer', contains: 'ok' }], ...o });
const problems = (raw: unknown) => {
  try {
    parseSuite(raw, path.join(tmp, 'suite.json'));
    return '';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('suite files', () => {
  it('names the field of every problem', () => {
    expect(problems({ tasks: [] })).toContain('tasks: Too small');
    expect(problems({ tasks: [task({ checks: [{ type: 'file', path: 'a' }] })] })).toContain('tasks[0].checks[0]: give exists, equals');
    expect(problems({ tasks: [task({ checks: [{ type: 'shell', run: 'x' }] })] })).toContain('tasks[0].checks[0].type');
    expect(problems({ tasks: [task({ budgets: { maxIterations: 0 } })] })).toContain('tasks[0].budgets.maxIterations');
    expect(problems({ tasks: [task({ promt: 'typo' })] })).toMatch(/tasks\[0\]: Unrecognized key: "promt"/);
    expect(problems({ tasks: [task(), task()] })).toContain('tasks[1].id: duplicate task id "t1"');
    expect(problems({ tasks: [task({ workspace: 'no-such-dir' })] })).toContain('tasks[0].workspace: no such folder');
    expect(problems({ tasks: [task({ checks: [{ type: 'answer', matches: '[' }] })] })).toContain(
      'tasks[0].checks[0].matches: not a regular expression',
    );
  });

  it('applies the defaults (budgets field by field) and resolves fixtures from the suite file', () => {
    mkdirSync(path.join(tmp, 'fx'), { recursive: true });
    const s = parseSuite(
      {
        defaults: { tools: ['files'], budgets: { maxIterations: 5 } },
        tasks: [task({ workspace: 'fx', budgets: { maxTokens: 100 } }), task({ id: 't2', tools: ['terminal'] })],
      },
      path.join(tmp, 'suite.json'),
    );
    expect(s.name).toBe('suite');
    expect(s.tasks[0]).toMatchObject({
      fixture: path.join(tmp, 'fx'),
      tools: ['files'],
      budgets: { maxIterations: 5, maxTokens: 100, maxDurationSec: 300 },
    });
    expect(s.tasks[1]).toMatchObject({ tools: ['terminal'], budgets: { maxIterations: 5 } });
  });

  it('reads YAML, and the example suite', () => {
    const file = path.join(tmp, 's.yml');
    writeFileSync(file, 'name: y\ntasks:\n  - id: a\n    prompt: hi\n    checks: [{ type: answer, matches: "^ok$", flags: i }]\n');
    expect(loadSuite(file).tasks[0]!.checks).toEqual([{ type: 'answer', matches: '^ok$', flags: 'i' }]);
    writeFileSync(file, 'tasks: [oops');
    expect(() => loadSuite(file)).toThrow(/not valid YAML/);
    expect(loadSuite(path.resolve(__dirname, '../examples/eval/suite.json')).tasks).toHaveLength(10);
  });
});

describe('checks', () => {
  it('file content, existence, a command with its exit code and output, the answer', async () => {
    const ws = mkdtempSync(path.join(tmp, 'ws-'));
    writeFileSync(path.join(ws, 'a.txt'), 'hello\n');
    const r = await runChecks(
      [
        { type: 'file', path: 'a.txt', equals: 'hello\n' },
        { type: 'file', path: 'a.txt', equals: 'hello' },
        { type: 'file', path: 'gone.txt', exists: false },
        { type: 'file', path: 'missing.txt', contains: 'x' },
        { type: 'file', path: '../escape.txt', exists: false },
        { type: 'command', run: 'cat a.txt; exit 3', exitCode: 3, output: { equals: 'hello' } },
        { type: 'command', run: 'false' },
        { type: 'command', run: 'sleep 5', timeoutSec: 0.2 },
        { type: 'answer', matches: 'forty[- ]two', flags: 'i' },
        { type: 'answer', notContains: '42' },
      ],
      ws,
      'It is Forty-two (42).',
    );
    expect(r.map((c) => c.ok)).toEqual([true, false, true, false, false, true, false, false, true, false]);
    expect(r[1]!.detail).toBe('file a.txt is "hello\\n", expected "hello"');
    expect(r[3]!.detail).toBe('file missing.txt does not exist');
    expect(r[4]!.detail).toContain('outside the workspace');
    expect(r[6]!.detail).toContain('exited 1, expected 0');
    expect(r[7]!.detail).toContain('timed out');
    expect(r[9]!.detail).toBe('answer contains "42"');
  });
});

const run = (o: Partial<RunRecord>): RunRecord => ({
  task: 'a',
  repeat: 1,
  pass: true,
  status: 'completed',
  checks: [],
  answer: '',
  iterations: 1,
  modelCalls: 2,
  toolCalls: 1,
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, costUsd: 0 },
  wallMs: 1000,
  faults: { total: 0, byType: {} },
  workspace: '/w',
  ...o,
});

describe('a run that does not end in time', () => {
  it('is cancelled, with what it had used by then from the state query', async () => {
    const calls: string[] = [];
    const handle = {
      result: () => new Promise(() => undefined),
      state: async () => (calls.push('state'), { iteration: 3, modelCalls: 4, toolCalls: 2, usage: { totalTokens: 99 } }),
      cancel: async () => void calls.push('cancel'),
    };
    const out = await resultWithin(handle as any, 20);
    expect(out).toMatchObject({ timedOut: true, error: 'no result within 0 s: cancelled', state: { modelCalls: 4 } });
    expect(calls).toEqual(['state', 'cancel']);
  });
});

describe('the report', () => {
  it('success rate with its spread over repeats, failure reasons grouped, totals per round', () => {
    expect(stat([1, 0])).toEqual({ mean: 0.5, sd: Math.SQRT1_2, min: 0, max: 1 });
    const r = buildReport(
      [
        run({ task: 'a', repeat: 1 }),
        run({ task: 'a', repeat: 2, pass: false, checks: [{ check: 'file x', ok: false, detail: 'file x does not exist' }] }),
        run({
          task: 'b',
          repeat: 1,
          pass: false,
          status: 'failed',
          reason: 'failed (ModelUnavailable)',
          faults: { total: 6, byType: { ModelUnavailable: 6 } },
        }),
        run({ task: 'b', repeat: 2, pass: false, status: 'timeout', reason: 'no result within 360 s: cancelled', wallMs: 3000 }),
      ],
      { suite: 's', repeat: 2, concurrency: 4, faultRate: 0.2 },
    );
    expect(r.tasks[0]).toMatchObject({ task: 'a', passes: 1, runs: 2, rate: 0.5, failures: { 'check file x': 1 } });
    expect(r.tasks[1]!.failures).toEqual({ 'failed (ModelUnavailable)': 1, 'no result within 360 s: cancelled': 1 });
    expect(r.summary).toMatchObject({ runs: 4, passes: 1, roundRates: [0.5, 0], statuses: { completed: 2, failed: 1, timeout: 1 } });
    const table = formatReport(r);
    expect(table).toMatch(/^a\s+1\/2\s+50% ±71%\s+2\s+1\s/m);
    expect(table).toContain('s: 1/4 passed (25%) · per repeat 50%, 0% (mean 25% ±35%, range 0%–50%)');
    expect(table).toContain('injected faults: 6 (ModelUnavailable 6) at --faults 0.2');
  });
});

describe('injected faults', () => {
  const payload = (v: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(v)] });
  const failure = (message: string, type: string) => ({ message, applicationFailureInfo: { type } });
  it('are counted from a history: a model result lists earlier attempts, tools by their started and failed events', () => {
    const events = [
      { eventId: 5, activityTaskScheduledEventAttributes: { activityType: { name: 'callModel' } } },
      {
        eventId: 6,
        activityTaskStartedEventAttributes: { scheduledEventId: 5, attempt: 3, lastFailure: failure(`${INJECTED_PREFIX} x`, 'RateLimited') },
      },
      {
        eventId: 7,
        activityTaskCompletedEventAttributes: {
          scheduledEventId: 5,
          result: payload({
            failures: [
              { type: 'ModelUnavailable', message: `${INJECTED_PREFIX} 500` },
              { type: 'RateLimited', message: `${INJECTED_PREFIX} 429` },
            ],
          }),
        },
      },
      { eventId: 8, activityTaskScheduledEventAttributes: { activityType: { name: 'runTool' } } },
      {
        eventId: 9,
        activityTaskStartedEventAttributes: { scheduledEventId: 8, attempt: 3, lastFailure: failure(`${INJECTED_PREFIX} t`, 'InjectedFault') },
      },
      { eventId: 10, activityTaskFailedEventAttributes: { scheduledEventId: 8, failure: failure(`${INJECTED_PREFIX} t`, 'InjectedFault') } },
      // A real failure is not counted.
      { eventId: 11, activityTaskScheduledEventAttributes: { activityType: { name: 'runTool' } } },
      { eventId: 12, activityTaskStartedEventAttributes: { scheduledEventId: 11, attempt: 1 } },
      { eventId: 13, activityTaskFailedEventAttributes: { scheduledEventId: 11, failure: failure('disk full', 'Error') } },
    ];
    expect(countInjectedFaults([events as any])).toEqual({ total: 5, byType: { ModelUnavailable: 1, RateLimited: 1, InjectedFault: 3 } });
  });

  it('HERMES_FAULTS and HERMES_FAULTS_SEED', () => {
    expect(faultsFromEnv({})).toBeUndefined();
    expect(faultsFromEnv({ HERMES_FAULTS: '0' })).toBeUndefined();
    expect(faultsFromEnv({ HERMES_FAULTS: '0.2', HERMES_FAULTS_SEED: '7' })).toEqual({ rate: 0.2, seed: 7 });
    expect(() => faultsFromEnv({ HERMES_FAULTS: '20%' })).toThrow(/HERMES_FAULTS must be a rate/);
    expect(() => faultsFromEnv({ HERMES_FAULTS: '0.1', HERMES_FAULTS_SEED: 'x' })).toThrow(/HERMES_FAULTS_SEED/);
  });
});
