// `hermes schedule` against a cluster (TEMPORAL_ADDRESS set: no embedded server; the harness's worker runs the
// firings), checked against what the server and the stock `temporal schedule` commands say. Every schedule
// made here is deleted again: the dev server is shared by the whole run.
import { ScheduleNotFoundError } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { main, UsageError } from '../src/cli/index';
import { HermesSchedules, TaskError } from '../src/schedules/client';
import { TASK_LIMITS } from '../src/schedules/limits';
import { scheduleIdOf } from '../src/schedules/tasks';
import { formatFireTime } from '../src/schedules/when';
import { DEFAULT_LIMITS } from '../src/shared/defaults';
import { answer, createHarness, type Harness } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { freePort, spawnHermes } from './helpers/spawn-hermes';
import { waitFor } from './helpers/wait';

const exec = promisify(execFile);
const ANSWER = 'All 3 nightly builds passed.\nDetails: 412 tests, 0 failures.';
const uid = `${process.pid.toString(36)}${Date.now().toString(36)}`;
const created = new Set<string>();
let h: Harness;

beforeAll(async () => {
  // A */5 cron may also fire by itself during a test: every firing gets the same answer.
  h = await createHarness(Array.from({ length: 4 }, () => answer(ANSWER)));
});
afterEach(async () => {
  // The schedules, and any firing left running (a */5 cron may fire by itself while no worker polls).
  await Promise.all(
    [...created].map(async (n) => {
      await h.client.schedule
        .getHandle(scheduleIdOf(n))
        .delete()
        .catch(() => undefined);
      for await (const w of h.client.workflow.list({ query: `HermesSchedule = "${n}" AND ExecutionStatus = "Running"` })) {
        await h.client.workflow
          .getHandle(w.workflowId)
          .terminate('test clean-up')
          .catch(() => undefined);
      }
    }),
  );
  created.clear();
});
afterAll(async () => {
  await h?.close();
});

/** A task name unique to this run, deleted after the test. */
function taskName(what: string): string {
  const name = `cli-${uid}-${what}`;
  created.add(name);
  return name;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real `hermes` command against the shared dev server, on the harness's task queue. */
async function hermes(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  try {
    const r = await exec(process.execPath, [path.resolve('bin/hermes.js'), ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue, ...opts.env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function ok(args: string[], opts?: { cwd?: string }): Promise<Run> {
  const r = await hermes(args, opts);
  expect(r.code, `hermes ${args.join(' ')}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(0);
  return r;
}

/** The stock `temporal` CLI against the same server. */
async function temporal(...args: string[]): Promise<string> {
  const cli = inject('temporalCliPath');
  expect(cli, 'the test setup provides the temporal CLI').toBeTruthy();
  return (await exec(cli, [...args, '--address', inject('temporalAddress')])).stdout;
}

async function temporalDescribe(name: string): Promise<{ schedule: { state: { paused?: boolean } } }> {
  return JSON.parse(await temporal('schedule', 'describe', '--schedule-id', scheduleIdOf(name), '-o', 'json')) as {
    schedule: { state: { paused?: boolean } };
  };
}

const describeSchedule = (name: string) => h.client.schedule.getHandle(scheduleIdOf(name)).describe();
const fireTimes = (times: Date[], tz: string) => times.slice(0, 3).map((t) => formatFireTime(t, tz));

describe('hermes schedule', () => {
  it('add, list, show, a firing started by `temporal schedule trigger`, runs, pause, resume and rm', async () => {
    const name = taskName('cycle');
    const tz = 'Europe/Paris';
    // A relative --workspace is made absolute where it was typed.
    const add = await ok(
      [
        'schedule',
        'add',
        name,
        '--cron',
        '*/5 * * * *',
        '--tz',
        tz,
        '--workspace',
        path.basename(h.workspace),
        '--tools',
        'files',
        '--max-iterations',
        '5',
        '--description',
        'nightly CI summary',
        'Summarise last night’s CI runs',
      ],
      { cwd: path.dirname(h.workspace) },
    );
    expect(add.stdout).toContain(`registered task ${name} (schedule ${scheduleIdOf(name)}): */5 * * * * (${tz})`);
    expect(add.stderr).toMatch(new RegExp(`firings run on the workers of task queue "${h.taskQueue}"`));
    const registered = await describeSchedule(name);
    for (const t of fireTimes(registered.info.nextActionTimes, tz)) expect(add.stdout).toContain(`  ${t}`);
    expect(registered.action.args?.[0]).toMatchObject({
      prompt: 'Summarise last night’s CI runs',
      workspace: h.workspace,
      tools: ['files'],
      limits: { ...DEFAULT_LIMITS, maxIterations: 5 },
      scheduled: true,
      schedule: { name },
    });
    expect(registered.action.taskQueue).toBe(h.taskQueue);

    // Both lists show it (schedule visibility is eventually consistent: wait until the server lists it).
    await waitFor('the schedule in the visibility store', async () => (await h.hermes.schedules.list()).some((t) => t.name === name));
    const [list, stockList] = await Promise.all([ok(['schedule', 'list']), temporal('schedule', 'list')]);
    const line = list.stdout.split('\n').find((l) => l.startsWith(`${name} `));
    expect(line).toMatch(new RegExp(`^${name}\\s+active\\s+\\*/5 \\* \\* \\* \\* \\(${tz}\\)\\s+next .*nightly CI summary$`));
    expect(stockList).toContain(scheduleIdOf(name));

    // show: the next 3 fire times are the server's, to the second (a 5-minute boundary may pass meanwhile).
    const before = await describeSchedule(name);
    const show = await ok(['schedule', 'show', name]);
    const after = await describeSchedule(name);
    const printed = show.stdout.split('\n').filter((l) => /^ {2}\w{3} \d{4}-/.test(l));
    expect([fireTimes(before.info.nextActionTimes, tz), fireTimes(after.info.nextActionTimes, tz)]).toContainEqual(printed.map((l) => l.trim()));
    expect(printed).toHaveLength(3);
    expect(show.stdout).toContain(`run config: tools files · workspace ${h.workspace} · maxIterations 5`);

    // The stock CLI fires it; the harness's worker runs the conversation with the task's run config.
    const workflowId = await h.run(async () => {
      await temporal('schedule', 'trigger', '--schedule-id', scheduleIdOf(name));
      const id = await waitFor('the triggered firing', async () => (await describeSchedule(name)).info.recentActions[0]?.action.workflow.workflowId);
      expect((await h.hermes.get(id).result()).status).toBe('completed');
      return id;
    });
    expect(workflowId).toMatch(new RegExp(`^${scheduleIdOf(name)}-\\d{4}-\\d{2}-\\d{2}T`));
    const request = h.mock.requests[0]!;
    expect(request.messages.at(-1)).toMatchObject({ role: 'user', content: 'Summarise last night’s CI runs' });
    expect(request.tools?.sort()).toEqual(['list_dir', 'patch', 'read_file', 'search_files', 'write_file']);

    // runs: status, start time, workflow id and the answer's first line (the firing is found by HermesSchedule).
    const listed = await waitFor('the firing in the visibility store', async () =>
      (await h.hermes.schedules.runs(name)).find((r) => r.status === 'completed'),
    );
    expect(listed).toMatchObject({ workflowId, execution: 'COMPLETED', status: 'completed', answer: ANSWER });
    const { stdout: runs } = await ok(['schedule', 'runs', name]);
    expect(runs).toMatch(
      new RegExp(`^completed\\s+\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z\\s+${workflowId}\\s+All 3 nightly builds passed\\.$`, 'm'),
    );
    expect(runs).not.toContain('Details');

    // pause / resume / rm as the stock CLI sees them.
    await ok(['schedule', 'pause', name, '--note', 'holiday week']);
    expect((await temporalDescribe(name)).schedule.state).toMatchObject({ paused: true, notes: 'holiday week' });
    await ok(['schedule', 'resume', name]);
    expect((await temporalDescribe(name)).schedule.state.paused ?? false).toBe(false);
    expect((await ok(['schedule', 'rm', name])).stdout).toContain(`deleted task ${name}`);
    await expect(temporal('schedule', 'describe', '--schedule-id', scheduleIdOf(name))).rejects.toMatchObject({
      stderr: expect.stringMatching(/not found/),
    });
    await expect(h.hermes.schedules.describe(name)).rejects.toThrow(`no task named "${name}"`);
  });

  it('a one-shot ("in 3s") fires exactly once, then has no actions left', async () => {
    const name = taskName('once');
    const add = await ok(['schedule', 'add', name, '--cron', 'in 3s', 'Say hello once']);
    expect(add.stdout.match(/^ {2}\w{3} /gm)).toHaveLength(1);
    const firstId = await h.run(async () => {
      const d = await waitFor('the one-shot to fire', async () => {
        const s = await describeSchedule(name);
        return s.state.remainingActions === 0 && s.info.recentActions.length > 0 && s;
      });
      const id = d.info.recentActions[0]!.action.workflow.workflowId;
      expect((await h.hermes.get(id).result()).status).toBe('completed');
      return id;
    });
    const d = await describeSchedule(name);
    expect(d.state.remainingActions).toBe(0);
    expect(d.info.numActionsTaken).toBe(1);
    expect(d.info.recentActions.map((a) => a.action.workflow.workflowId)).toEqual([firstId]);
    expect(d.info.nextActionTimes).toEqual([]);
    // show --json: the task as the CLI sees it, done.
    const shown = JSON.parse((await ok(['schedule', 'show', name, '--json'])).stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({ name, paused: false, remainingActions: 0, nextRuns: [], recentRuns: [{ workflowId: firstId }] });
  }, 30_000);

  it('an existing name is an error unless --replace', async () => {
    const name = taskName('dup');
    await h.hermes.schedules.create({ name, when: '@daily', prompt: 'first prompt' });
    const again = await hermes(['schedule', 'add', name, '--cron', '@hourly', 'second prompt']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`a task named "${name}" already exists (@daily, registered by the client)`);
    expect(again.stderr).toContain('--replace');
    expect((await describeSchedule(name)).memo?.hermes).toMatchObject({ when: '@daily', prompt: 'first prompt' });

    const replaced = JSON.parse((await ok(['schedule', 'add', name, '--cron', '@hourly', '--replace', '--json', 'second prompt'])).stdout) as {
      when: string;
      nextRuns: string[];
    };
    expect(replaced.when).toBe('@hourly');
    expect(replaced.nextRuns).toHaveLength(3);
    expect(new Date(replaced.nextRuns[1]!).getTime() - new Date(replaced.nextRuns[0]!).getTime()).toBe(3_600_000);
    expect((await describeSchedule(name)).memo?.hermes).toMatchObject({ when: '@hourly', prompt: 'second prompt' });
  });

  it('invalid schedules are usage errors, found before connecting, and nothing is created', async () => {
    const cases: Array<[string, string[], RegExp]> = [
      [
        taskName('bad1'),
        ['--cron', '61 * * * *'],
        /"61 \* \* \* \*" is not a valid cron expression .*got value 61 expected range 0-59.*e\.g\. "0 9 \* \* 1-5"/,
      ],
      [taskName('bad2'), ['--cron', 'every 0m'], /an interval must be at least 1 minute/],
      [taskName('bad3'), ['--cron', 'in -5m'], /"in -5m" is not in the future/],
      [taskName('bad4'), ['--cron', 'garbage'], /"garbage" is not a schedule: a cron expression has 5 fields/],
      [taskName('bad5'), ['--cron', '0 9 * * *', '--tz', 'Mars/Base'], /unknown timezone "Mars\/Base"/],
      [taskName('bad6'), ['--cron', '@daily', '--tools', 'files,no_such_tool'], /unknown tools or toolsets: no_such_tool/],
      [
        taskName('bad7'),
        ['--cron', '@daily', '--max-iterations', '1000001'],
        /--max-iterations must be a whole number from 0 \(no step cap\) to 1000000/,
      ],
      [taskName('bad8'), [], /needs --cron/],
      ['not-a-name!', ['--cron', '@daily'], /task name "not-a-name!": use 1-63 lowercase letters/],
    ];
    // In this process (bin/hermes.js turns a UsageError into exit code 2)…
    for (const [name, opts, message] of cases) {
      const err = await main(['schedule', 'add', name, ...opts, 'do something']).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, `${name} ${opts.join(' ')}`).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(message);
    }
    // …and two of them as real commands, against the cluster.
    const real = await Promise.all([cases[0]!, cases[4]!].map(([name, opts]) => hermes(['schedule', 'add', name, ...opts, 'do something'])));
    real.forEach((r, i) => {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch([cases[0]!, cases[4]!][i]![2]);
      expect(r.stdout).toBe('');
    });
    for (const [name] of cases) await expect(describeSchedule(name)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });
});

describe('hermes.schedules (code)', () => {
  it('create resolves a relative workspace; update keeps what it does not change, paused included; delete', async () => {
    const name = taskName('code');
    const schedules = h.hermes.schedules;
    const rel = path.relative(process.cwd(), h.workspace);
    const info = await schedules.create({
      name,
      when: '0 9 * * 1-5',
      timezone: 'America/New_York',
      prompt: 'Weekday report',
      config: { workspace: rel, tools: ['files'], limits: { maxIterations: 7 }, approvalMode: 'allow' },
      webhook: '$REPORT_URL',
      overlap: 'buffer_one',
    });
    expect(info.nextRuns.slice(0, 3).map((t) => formatFireTime(t, 'America/New_York'))).toEqual([
      expect.stringMatching(/^(Mon|Tue|Wed|Thu|Fri) \d{4}-\d{2}-\d{2} 09:00:00 America\/New_York \(1[34]:00:00 UTC\)$/),
      expect.any(String),
      expect.any(String),
    ]);
    expect((await describeSchedule(name)).memo?.hermes).toMatchObject({ registeredBy: { via: 'client' } });
    await expect(schedules.create({ name, when: '@daily', prompt: 'x' })).rejects.toThrow(TaskError);

    await schedules.pause(name, 'on hold');
    const updated = await schedules.update(name, { prompt: 'Weekday report, short', config: { model: 'cheap', limits: { maxTokens: 5000 } } });
    expect(updated).toMatchObject({
      prompt: 'Weekday report, short',
      paused: true,
      note: 'on hold',
      when: '0 9 * * 1-5',
      timezone: 'America/New_York',
    });
    expect(await schedules.definition(name)).toEqual({
      name,
      when: '0 9 * * 1-5',
      timezone: 'America/New_York',
      prompt: 'Weekday report, short',
      config: {
        workspace: h.workspace,
        tools: ['files'],
        limits: { ...DEFAULT_LIMITS, maxIterations: 7, maxTokens: 5000 },
        approvalMode: 'allow',
        model: 'cheap',
      },
      webhook: '$REPORT_URL',
      overlap: 'buffer_one',
      catchupWindowSec: 600,
    });
    const d = await describeSchedule(name);
    expect(d.policies.overlap).toBe('BUFFER_ONE');
    expect(d.action.taskQueue).toBe(h.taskQueue);

    await schedules.delete(name);
    await expect(schedules.describe(name)).rejects.toThrow(`no task named "${name}"`);
    await expect(schedules.update(name, { prompt: 'x' })).rejects.toThrow(TaskError);
  });
});

describe('issue 18: what a hostile probe found', () => {
  it('five replaces of one name at once: never a server error, the last create wins, each says what became of it', async () => {
    const name = taskName('dup5');
    await h.hermes.schedules.create({ name, when: '@daily', prompt: 'first' });
    for (let round = 0; round < 2; round++) {
      const results = await Promise.allSettled(
        [0, 1, 2, 3, 4].map((i) => h.hermes.schedules.create({ name, when: `${i} 9 * * *`, prompt: `p${round}-${i}` }, { replace: true })),
      );
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') expect(r.value).toMatchObject({ prompt: `p${round}-${i}`, when: `${i} 9 * * *` });
        else {
          expect(r.reason, String(r.reason)).toBeInstanceOf(TaskError);
          expect((r.reason as Error).message).toMatch(/someone else is replacing it at the same time/);
        }
      });
      const final = await h.hermes.schedules.describe(name);
      const winners = results.filter((r) => r.status === 'fulfilled').map((r) => r.value.prompt);
      expect(winners).toContain(final.prompt);
    }
    // And as the probe did it: five `hermes schedule add --replace` processes.
    const runs = await Promise.all([0, 1, 2, 3, 4].map((i) => hermes(['schedule', 'add', name, '--cron', `${i} 8 * * *`, '--replace', `cli ${i}`])));
    for (const r of runs) {
      expect([0, 1], r.stderr).toContain(r.code);
      if (r.code) expect(r.stderr).toMatch(/^hermes: task ".*someone else is replacing it at the same time/m);
    }
    expect(runs.some((r) => r.code === 0)).toBe(true);
    expect((await h.hermes.schedules.describe(name)).prompt).toMatch(/^cli \d$/);
  }, 120_000);

  it('a prompt or a description past task_register’s limits is refused by the client and the CLI too', async () => {
    const name = taskName('big');
    const p = TASK_LIMITS.promptChars;
    await expect(h.hermes.schedules.create({ name, when: '@daily', prompt: 'x'.repeat(p + 1) })).rejects.toThrow(
      new TaskError(`the prompt of task "${name}" is 20,001 characters: at most 20,000`),
    );
    await expect(
      h.hermes.schedules.create({ name, when: '@daily', prompt: 'x', description: 'd'.repeat(TASK_LIMITS.descriptionChars + 1) }),
    ).rejects.toThrow(new TaskError(`the description of task "${name}" is 501 characters: at most 500`));
    const [prompt, description] = await Promise.all([
      hermes(['schedule', 'add', name, '--cron', '@daily', 'p'.repeat(120_000)]),
      hermes(['schedule', 'add', name, '--cron', '@daily', '--description', 'd'.repeat(100_000), 'do it']),
    ]);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toContain('is 120,000 characters: at most 20,000');
    expect(description.code).toBe(2);
    expect(description.stderr).toContain('the description of task');
    expect(description.stderr).toContain('is 100,000 characters: at most 500');
    await expect(describeSchedule(name)).rejects.toBeInstanceOf(ScheduleNotFoundError);
    // At the limits it is a task.
    const info = await h.hermes.schedules.create({ name, when: '@daily', prompt: 'x'.repeat(p), description: 'd'.repeat(500) });
    expect(info.prompt).toHaveLength(p);
  });

  it('a one-shot past what the server takes is a usage error, not a server error', async () => {
    const r = await hermes(['schedule', 'add', taskName('far'), '--cron', 'in 999999d', 'much later']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/"in 999999d" would fire in the year \d{4}: Temporal schedules fire up to the year 2100/);
  });

  it('webhooks: http(s) only, and no private or link-local address unless allowed, checked at registration', async () => {
    const cases: Array<[string, RegExp]> = [
      ['file:///etc/passwd', /webhook file:\/\/\/etc\/passwd: only http and https URLs are accepted, not file:/],
      [
        'http://169.254.169.254/latest/meta-data/',
        /169\.254\.169\.254 is a link-local address; webhooks are not delivered to .*HERMES_WEBHOOK_ALLOW_PRIVATE=1/,
      ],
      ['http://127.0.0.1:9/hook', /127\.0\.0\.1 is a loopback address/],
      ['http://localhost:9/hook', /localhost resolves to 127\.0\.0\.1, a loopback address/],
      ['http://[::ffff:10.0.0.1]/', /private address/],
      ['$1BAD', /an environment variable reference is \$ and a name/],
    ];
    for (const [webhook, message] of cases) {
      await expect(h.hermes.schedules.create({ name: taskName('hook'), when: '@daily', prompt: 'x', webhook }), webhook).rejects.toThrow(message);
    }
    const r = await hermes(['schedule', 'add', taskName('hook-cli'), '--cron', '@daily', '--webhook', 'http://169.254.169.254/x', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('169.254.169.254 is a link-local address');
    // A worker (and so a registering process) that allows the host accepts it.
    const allowed = await hermes(['schedule', 'add', taskName('hook-ok'), '--cron', '@daily', '--webhook', 'http://127.0.0.1:9/hook', 'x'], {
      env: { HERMES_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
    });
    expect(allowed.code, allowed.stderr).toBe(0);
  });

  it('temporal schedule trigger applies Skip whatever the task’s overlap, and does not see firings of trigger()', async () => {
    // No worker polls this queue: every firing stays running.
    const schedules = new HermesSchedules(h.client, `nobody-${uid}`);
    const [skip, buffered, hermesFirst] = [taskName('ovl-skip'), taskName('ovl-buffer'), taskName('ovl-hermes')];
    await schedules.create({ name: skip, when: '@yearly', prompt: 'x' });
    await schedules.create({ name: buffered, when: '@yearly', prompt: 'x', overlap: 'buffer_one' });
    await schedules.create({ name: hermesFirst, when: '@yearly', prompt: 'x' });
    const info = async (n: string) => (await describeSchedule(n)).info;
    const stockTrigger = (n: string) => temporal('schedule', 'trigger', '--schedule-id', scheduleIdOf(n));
    // A firing's id is the task's and the second it is due: another trigger within the same second finds that id
    // taken and starts nothing. Triggers that must start wait for the next second.
    const afterLastFiring = async (n: string) => {
      const second = Math.max(...(await info(n)).recentActions.map((a) => Math.floor(a.takenAt.getTime() / 1000)));
      await waitFor('the next second', () => Math.floor(Date.now() / 1000) > second);
    };
    try {
      for (const n of [skip, buffered]) {
        await stockTrigger(n);
        await waitFor(`the first firing of ${n}`, async () => (await info(n)).runningActions.length === 1);
        await stockTrigger(n);
        // The second is skipped, also for buffer_one: the stock CLI's --overlap-policy defaults to Skip.
        const after = await waitFor(`the skip of ${n}`, async () => {
          const i = await info(n);
          return i.numActionsSkippedOverlap === 1 && i;
        });
        expect(after.numActionsTaken, n).toBe(1);
        expect((await describeSchedule(n)).raw.info?.bufferSize?.toString() ?? '0', n).toBe('0');
      }
      // hermes schedule trigger / trigger() start allow-all firings, which the schedule does not track: they run
      // while another firing runs, and a stock trigger afterwards is not skipped because of them.
      await afterLastFiring(skip);
      await schedules.trigger(skip);
      await waitFor('the allow-all firing', async () => (await info(skip)).numActionsTaken === 2);
      await schedules.trigger(hermesFirst);
      await waitFor('the allow-all firing', async () => (await info(hermesFirst)).numActionsTaken === 1);
      expect((await info(hermesFirst)).runningActions).toEqual([]);
      await afterLastFiring(hermesFirst);
      await stockTrigger(hermesFirst);
      const both = await waitFor('the stock firing', async () => {
        const i = await info(hermesFirst);
        return i.numActionsTaken === 2 && i;
      });
      expect(both.numActionsSkippedOverlap).toBe(0);
    } finally {
      for (const n of [skip, buffered, hermesFirst]) {
        for (const a of (await info(n)).recentActions) {
          await h.client.workflow
            .getHandle(a.action.workflow.workflowId)
            .terminate('test over')
            .catch(() => undefined);
        }
      }
    }
  });
});

describe('hermes schedule in embedded mode', () => {
  it('trigger runs a task whose --workspace add accepted: its worker takes that workspace as a root, as run does', async () => {
    const mock = await MockModel.start([answer('Ran in the task workspace.')]);
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'hermes-sched-embedded-'));
    const [home, workspace, cwd] = ['home', 'ws', 'cwd'].map((d) => path.join(tmp, d));
    for (const d of [home, workspace, cwd]) mkdirSync(d);
    const cliPath = inject('temporalCliPath');
    const env = {
      OPENAI_BASE_URL: mock.baseURL,
      OPENAI_API_KEY: 'sk-test',
      HERMES_MODEL: 'mock-model',
      HERMES_HOME: home,
      ...(cliPath ? { TEMPORAL_CLI_PATH: cliPath } : {}),
      HERMES_TEMPORAL_PORT: String(await freePort()),
      HERMES_UI_PORT: String(await freePort()),
    };
    try {
      const add = await spawnHermes(['schedule', 'add', 'embedded-ws', '--cron', '@yearly', '--workspace', workspace, 'List the workspace.'], {
        env,
        cwd,
      });
      expect(add.code, add.stderr).toBe(0);
      const run = await spawnHermes(['schedule', 'trigger', 'embedded-ws'], { env, cwd, timeoutMs: 120_000 });
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout.trim()).toBe('Ran in the task workspace.');
      expect(run.stderr).toContain('status: completed');
      expect(String(mock.requests[0]!.messages[0]!.content)).toContain(workspace);
    } finally {
      await mock.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 180_000);
});
