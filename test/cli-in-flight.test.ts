// Never silent: the run display shows a slow model call with its elapsed time and each retry with its reason
// (from the workflow's pending activities), `hermes status` shows the call in flight, and in embedded mode the
// worker's log lines go to a file instead of onto the display.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { ConversationHandle, InFlightCall } from '../src/client';
import { follow } from '../src/cli/follow';
import type { ConversationState } from '../src/shared/contract';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { cleanEnv, freePort, HERMES_BIN, spawnHermes } from './helpers/spawn-hermes';

let h: Harness | undefined;
const children: ChildProcess[] = [];
const mocks: MockModel[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(mocks.splice(0).map((m) => m.close()));
  await h?.close();
  h = undefined;
});

const clusterEnv = (taskQueue: string) => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: taskQueue });

/** `hermes …` as a child whose stderr (a pipe, not a terminal: the lines mode) can be watched while it runs. */
function started(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [HERMES_BIN, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { out, exited };
}

describe('the call in flight (cluster mode, a worker in the test process)', () => {
  it('a 16 s model call shows its elapsed time in the run display', async () => {
    h = await createHarness([{ content: 'slow but sure', delayMs: 16_000 }]); // the line is due at 10 s: 6 s for a look to catch it
    const run = started(['run', 'take your time'], clusterEnv(h.taskQueue));
    const code = await h.run(() => run.exited);
    expect(code, run.out.stderr).toBe(0);
    expect(run.out.stdout).toContain('slow but sure');
    // Lines mode (stderr is a pipe): one line once the call has run 10 s, before the step line of its answer.
    const lines = run.out.stderr.split('\n');
    const elapsed = lines.findIndex((l) => /^ {2}… model step 1: running 1\d s$/.test(l));
    const answered = lines.findIndex((l) => /\[\s*1\] model mock-model \(model step 1\): answer/.test(l));
    expect(elapsed, run.out.stderr).toBeGreaterThanOrEqual(0);
    expect(answered, run.out.stderr).toBeGreaterThan(elapsed);
    expect(lines.filter((l) => l.includes('… model step 1: running'))).toHaveLength(1); // the next one is due at 40 s
  }, 60_000);

  it('hermes status shows the call in flight, named by its model-step number', async () => {
    h = await createHarness([{ content: 'never seen', delayMs: 60_000 }]);
    await h.run(async () => {
      const handle = await h!.hermes.start({ prompt: 'take a long time' });
      await h!.mock.waitForRequest(1, 20_000);
      const status = await spawnHermes(['status', handle.id], { env: clusterEnv(h!.taskQueue) });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toMatch(/^in flight: model step 1: running \d+ s$/m);
      const json = await spawnHermes(['status', handle.id, '--json'], { env: clusterEnv(h!.taskQueue) });
      const calls = (JSON.parse(json.stdout) as { inFlight: InFlightCall[] }).inFlight;
      expect(calls).toMatchObject([{ kind: 'model', modelStep: 1, attempt: 1, maxAttempts: 6, state: 'running' }]);
      expect(calls[0]!.runningSec).toBeGreaterThanOrEqual(1);
      await handle.cancel();
      await handle.result();
    });
  }, 90_000);

  it('a 503 and then a good reply shows the retry with its reason in the run display', async () => {
    h = await createHarness([
      // A gateway that gives up after 6 s: slow enough for the display to be looking (after 5 s without a step).
      { status: 503, delayMs: 6_000, body: { error: { message: 'upstream overloaded', type: 'server_error' } } },
      { content: 'second try worked', delayMs: 4_000 },
    ]);
    const run = started(['run', 'try again'], clusterEnv(h.taskQueue));
    const code = await h.run(() => run.exited);
    expect(code, run.out.stderr).toBe(0);
    expect(run.out.stdout).toContain('second try worked');
    h.mock.assertDone();
    const retry = run.out.stderr.split('\n').filter((l) => l.includes('attempt 1 failed'));
    expect(retry, run.out.stderr).toHaveLength(1);
    expect(retry[0]).toMatch(
      /^ {2}model step 1: attempt 1 failed — ModelUnavailable: model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 answered 503: .*upstream overloaded.*; (retrying in \d+ s|attempt 2 running)$/,
    );
  }, 60_000);
});

describe('a long tool call', () => {
  it('is named by its tool in the status line (follow() with a log sink, a real worker)', async () => {
    h = await createHarness([toolCall('terminal', { command: 'sleep 6' }, 't1'), answer('slept')]);
    const drawn: string[] = [];
    const lines: string[] = [];
    const result = await h.run(async () => {
      const handle = await h!.hermes.start({ prompt: 'sleep a bit' });
      return follow(handle, handle.result(), {
        log: (l) => lines.push(l),
        inFlight: { afterMs: 2_000, everyMs: 1_000, redraw: (t) => drawn.push(t) },
      });
    });
    expect(result.answer).toBe('slept');
    expect(
      drawn.some((t) => /^ {2}… tool terminal: running [2-6] s$/.test(t)),
      drawn.join('\n'),
    ).toBe(true);
    expect(drawn.at(-1)).toBe(''); // cleared at the end
    expect(lines.some((l) => /tool\s+terminal/.test(l))).toBe(true);
  }, 60_000);
});

describe('the run display on a terminal', () => {
  it('redraws one status line in place and clears it before each step line', async () => {
    const calls: InFlightCall[][] = [
      [{ kind: 'model', activityId: '1', modelStep: 2, attempt: 1, maxAttempts: 6, state: 'running', runningSec: 6 }],
      [
        {
          kind: 'model',
          activityId: '1',
          modelStep: 2,
          attempt: 2,
          maxAttempts: 6,
          state: 'waiting',
          runningSec: 0,
          nextTryInSec: 2,
          lastFailure: { type: 'ModelTimeout', message: 'model request timed out' },
        },
      ],
    ];
    let settle!: (v: string) => void;
    const finished = new Promise<string>((resolve) => (settle = resolve));
    let looks = 0;
    const handle = {
      id: 'conv-tty',
      state: () =>
        Promise.resolve({ status: 'running', waitingFor: null, steps: [], stepsMissed: 0, pendingApprovals: [] } as unknown as ConversationState),
      inFlight: () => {
        const c = calls[Math.min(looks++, calls.length - 1)]!;
        if (looks === 3) settle('done');
        return Promise.resolve(c);
      },
    } as unknown as ConversationHandle;
    const out: string[] = [];
    const result = await follow(handle, finished, {
      log: (l) => out.push(`log:${l}`),
      intervalMs: 5,
      inFlight: { afterMs: 0, everyMs: 10, redraw: (t) => out.push(`draw:${t}`) },
    });
    expect(result).toBe('done');
    expect(out).toEqual([
      'draw:  … model step 2: running 6 s',
      'draw:', // cleared before the retry line
      'log:  model step 2: attempt 1 failed — ModelTimeout: model request timed out; retrying in 2 s',
      'draw:  … model step 2: waiting for attempt 2 of 6, in 2 s',
      ...out.slice(4, -1), // the third look repeats it
      'draw:', // and the result clears it
    ]);
  });
});

describe('embedded mode', () => {
  it('a retried model call leaves no JSON log line on stderr: the line is in worker.log, redacted, and its path is said once', async () => {
    const key = 'sk-hermes-embedded-secret-4242';
    const mock = await MockModel.start([
      { status: 503, body: { error: { message: `overloaded (key ${key})`, type: 'server_error' } } },
      answer('fine after all'),
    ]);
    mocks.push(mock);
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'hermes-inflight-'));
    const home = path.join(tmp, 'home');
    const cliPath = inject('temporalCliPath');
    const env = {
      OPENAI_BASE_URL: mock.baseURL,
      OPENAI_API_KEY: key,
      HERMES_MODEL: 'mock-model',
      HERMES_HOME: home,
      ...(cliPath ? { TEMPORAL_CLI_PATH: cliPath } : {}),
      HERMES_TEMPORAL_PORT: String(await freePort()),
      HERMES_UI_PORT: String(await freePort()),
      HERMES_WORKSPACE: tmp,
    };
    const r = await spawnHermes(['run', 'once more'], { env, cwd: tmp, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('fine after all');
    expect(mock.requests).toHaveLength(2);
    const file = path.join(home, 'worker.log');
    expect(
      r.stderr.split('\n').filter((l) => l.trimStart().startsWith('{')),
      r.stderr,
    ).toEqual([]);
    expect(r.stderr.match(/its log is (\S+)\)/g), r.stderr).toEqual([`its log is ${file})`]);
    expect(existsSync(file)).toBe(true);
    const logged = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; error?: { type?: string; message?: string }; taskToken?: string });
    const failed = logged.find((l) => l.msg === 'Activity failed');
    expect(failed, JSON.stringify(logged)).toBeDefined();
    expect(failed!.level).toBe(40);
    expect(failed!.error?.message).toContain('answered 503');
    expect(failed!.taskToken).toBeUndefined();
    expect(readFileSync(file, 'utf8')).not.toContain(key);
    expect(readFileSync(file, 'utf8')).toContain('REDACTED');
  }, 150_000);
});
