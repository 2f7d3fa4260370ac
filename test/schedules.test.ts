// Scheduled tasks from the model's side: `task_register` and friends on real Temporal Schedules (the shared
// dev server), a scripted model, the stock `temporal` CLI to trigger firings — no waiting for cron in real time.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { conversationInputSchema } from '../src/shared/contract';
import { deleteTask, describeTask, listTasks, registerTask, scheduleIdOf, TaskError, type TaskDefinition } from '../src/schedules/tasks';
import { formatFireTime, parseWhen } from '../src/schedules/when';
import { CronExpressionParser } from 'cron-parser';
import { Hermes } from '../src/client';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { waitFor } from './helpers/wait';
import { killAllWorkers, startWorkerProcess, workerEnv } from './helpers/worker-process';

const exec = promisify(execFile);
const temporal = (...args: string[]) => exec(inject('temporalCliPath'), [...args, '--address', inject('temporalAddress')]);
const stamp = Date.now().toString(36);
const created = new Set<string>();
let h: Harness;
let client: Client;

afterEach(async () => {
  await h?.close();
  h = undefined!; // the next test makes its own
});
afterAll(async () => {
  client ??= new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  for (const name of created) await deleteTask(client, name).catch(() => undefined);
  await client.connection.close();
});

/** Polls the task's schedule until it has started a firing; returns that conversation's result. */
async function firstFiring(name: string) {
  const info = await waitFor('the firing', async () => (await describeTask(h.client, name)).recentRuns[0], 15_000);
  return { workflowId: info.workflowId, result: await h.hermes.get(info.workflowId).result() };
}

describe('task_register', () => {
  it('registers a schedule the stock CLI sees; a trigger runs a conversation with the full config', async () => {
    const name = `ci-report-${stamp}`;
    created.add(name);
    h = await createHarness([
      toolCall(
        'task_register',
        { task_name: name, cron: '*/5 * * * *', timezone: 'Europe/Paris', task_prompt: 'Summarise the failed CI runs.', max_iterations: 7 },
        'r1',
      ),
      answer('Registered: every 5 minutes.'),
      answer('No failures today.'),
    ]);
    client = h.client;
    const result = await h.run(async () => {
      const registering = await h.hermes.start({ prompt: 'every 5 min summarise CI', workspace: h.workspace, maxIterations: 20 });
      const registered = await registering.result();
      expect(registered).toMatchObject({ status: 'completed', answer: 'Registered: every 5 minutes.' });

      // The next three fire times the model was shown are the ones the server computes.
      const text = toolResult(h.mock.requests[1]!.messages, 'r1')!;
      expect(text).toMatch(new RegExp(`Registered task "${name}"`));
      const server = (await client.schedule.getHandle(scheduleIdOf(name)).describe()).info.nextActionTimes.slice(0, 3);
      for (const t of server) expect(text).toContain(`(${t.toISOString().slice(11, 19)} UTC)`);

      const listed = (await temporal('schedule', 'list', '--output', 'json')).stdout;
      expect(listed).toContain(scheduleIdOf(name));
      await temporal('schedule', 'trigger', '--schedule-id', scheduleIdOf(name));
      return firstFiring(name);
    });
    expect(result.result).toMatchObject({ status: 'completed', answer: 'No failures today.' });
    expect(result.workflowId.startsWith(`${scheduleIdOf(name)}-`)).toBe(true);

    // The firing carried the registering conversation's config, narrowed by the call, and is linked back.
    const d = await h.client.workflow.getHandle(result.workflowId).describe();
    expect(d.searchAttributes.HermesSchedule).toEqual([name]);
    const history = await h.client.workflow.getHandle(result.workflowId).fetchHistory();
    const input = conversationInputSchema().parse(
      JSON.parse(Buffer.from(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!).toString()),
    );
    expect(input).toMatchObject({
      prompt: 'Summarise the failed CI runs.',
      scheduled: true,
      schedule: { name },
      workspace: h.workspace,
      approvalMode: 'deny',
      limits: { maxIterations: 7 },
    });
    // A scheduled run offers neither clarify nor the schedule tools (it must not multiply itself).
    const offered = h.mock.requests[2]!.tools!;
    expect(offered).toContain('read_file');
    expect(offered.filter((t) => t === 'clarify' || t.startsWith('task_'))).toEqual([]);
    expect(h.mock.requests[0]!.tools).toContain('task_register');
  });

  it('answers invalid schedules with an error the model can act on, creates nothing, and goes on', async () => {
    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      ['b1', { cron: '61 * * * *' }, /not a valid cron expression .*61.* e\.g\. "0 9 \* \* 1-5"/],
      ['b2', { cron: 'every 0m' }, /an interval must be at least 1 minute/],
      ['b3', { cron: 'in -5m' }, /is not in the future/],
      ['b4', { cron: 'garbage' }, /"garbage" is not a schedule/],
      ['b5', { cron: '0 9 * * *', timezone: 'Mars/Base' }, /unknown timezone "Mars\/Base"/],
      // Where results go: the webhook policy of the worker the tool runs on (issue 18).
      [
        'b6',
        { cron: '@daily', deliver: 'http://169.254.169.254/latest/meta-data/' },
        /169\.254\.169\.254 is a link-local address; webhooks are not delivered/,
      ],
      ['b7', { cron: '@daily', deliver: 'file:///etc/passwd' }, /only http and https URLs are accepted, not file:/],
      ['b8', { cron: '0 0 15W * *' }, /W \(the nearest weekday\) is not supported/],
    ];
    h = await createHarness([
      ...bad.map(([id, args]) => toolCall('task_register', { task_name: `bad-${id}-${stamp}`, task_prompt: 'x', ...args }, id)),
      answer('I could not schedule that.'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'schedule things' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'I could not schedule that.' });
    bad.forEach(([id, , message], i) => expect(toolResult(h.mock.requests[i + 1]!.messages, id)).toMatch(message));
    const names = (await listTasks(h.client)).map((t) => t.name);
    expect(names.filter((n) => n.startsWith('bad-'))).toEqual([]);
  });

  it('lists, pauses, resumes, shows runs of and cancels tasks from the model', async () => {
    const name = `tidy-${stamp}`;
    created.add(name);
    h = await createHarness([
      toolCall('task_register', { task_name: name, cron: '@daily', task_prompt: 'tidy up' }, 'r'),
      toolCall('task_pause', { task_name: name }, 'p'),
      toolCall('task_list', {}, 'l'),
      toolCall('task_resume', { task_name: name }, 'u'),
      toolCall('task_runs', { task_name: name }, 'n'),
      toolCall('task_cancel', { task_name: name }, 'c'),
      toolCall('task_runs', { task_name: name }, 'gone'),
      answer('done'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'manage tasks' })).result());
    expect(result.status).toBe('completed');
    const msgs = h.mock.requests.at(-1)!.messages;
    expect(toolResult(msgs, 'p')).toMatch(new RegExp(`${name}: @daily — paused`));
    expect(toolResult(msgs, 'l')).toMatch(new RegExp(`${name}: @daily — paused`));
    expect(toolResult(msgs, 'u')).toMatch(new RegExp(`${name}: @daily — active`));
    expect(toolResult(msgs, 'n')).toBe(`Task "${name}" has not run yet.`);
    expect(toolResult(msgs, 'c')).toBe(`Deleted task "${name}" (@daily).`);
    expect(toolResult(msgs, 'gone')).toMatch(new RegExp(`Error: no task named "${name}"`));
  });
});

describe('pause on failure', () => {
  it('a task whose firing fails (a FAILED workflow) is paused by Temporal; its runs show the failure', async () => {
    const name = `revoked-${stamp}`;
    created.add(name);
    h = await createHarness([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }]);
    await h.run(async () => {
      await h.hermes.schedules.create({ name, when: '@daily', prompt: 'summarise the day', pauseOnFailure: true });
      expect((await h.hermes.schedules.definition(name)).pauseOnFailure).toBe(true);
      await temporal('schedule', 'trigger', '--schedule-id', scheduleIdOf(name));
      const { workflowId, result } = await firstFiring(name);
      expect(result).toMatchObject({ status: 'failed', reason: 'ModelAuth' });
      expect((await h.client.workflow.getHandle(workflowId).describe()).status.name).toBe('FAILED');
      const paused = await waitFor('the schedule to pause', async () => {
        const d = await describeTask(h.client, name);
        return d.paused ? d : undefined;
      });
      expect(paused.paused).toBe(true);
      const [run] = await h.hermes.schedules.runs(name);
      expect(run).toMatchObject({ workflowId, execution: 'FAILED', status: 'failed', reason: 'ModelAuth' });
    });
  });
});

describe('a registered task outlives its worker', () => {
  it('fires with its full config on a new worker after the one that registered it was SIGKILLed', async () => {
    const name = `survivor-${stamp}`;
    created.add(name);
    const mock = await MockModel.start([
      toolCall('task_register', { task_name: name, cron: '0 3 * * *', task_prompt: 'Check the disk.', max_iterations: 4 }, 'r1'),
      answer('Registered.'),
      answer('Disk is fine.'),
    ]);
    h = await createHarness([]);
    const env = workerEnv({ address: inject('temporalAddress'), taskQueue: h.taskQueue, baseURL: mock.baseURL, workspace: h.workspace });
    try {
      const first = startWorkerProcess(env, h.workspace);
      await first.ready;
      const hermes = await Hermes.connect({ client: h.client, taskQueue: h.taskQueue });
      const registering = await hermes.start({ prompt: 'check the disk nightly', workspace: h.workspace });
      expect((await registering.result()).answer).toBe('Registered.');
      first.child.kill('SIGKILL');
      await first.exited;

      const second = startWorkerProcess(env, h.workspace);
      await second.ready;
      await temporal('schedule', 'trigger', '--schedule-id', scheduleIdOf(name));
      const { result } = await firstFiring(name);
      expect(result).toMatchObject({ status: 'completed', answer: 'Disk is fine.' });
      // The new worker ran it with the registered config: the prompt, the workspace in the system prompt.
      const firing = mock.requests[2]!;
      expect(firing.messages.at(-1)).toMatchObject({ role: 'user', content: 'Check the disk.' });
      expect(String(firing.messages[0]!.content)).toContain(h.workspace);
    } finally {
      await killAllWorkers();
      await mock.close();
    }
  });
});

describe('registerTask', () => {
  it('is idempotent for its registrant (a retried activity), an error for anyone else unless replacing', async () => {
    h = await createHarness([]);
    const name = `retry-${stamp}`;
    created.add(name);
    const def: TaskDefinition = { name, when: '0 9 * * 1-5', timezone: 'Europe/Paris', prompt: 'report' };
    const by = { via: 'tool' as const, workflowId: 'conv-1', callId: 'call-1' };
    const first = await registerTask(h.client, h.taskQueue, def, { registeredBy: by });
    const again = await registerTask(h.client, h.taskQueue, def, { registeredBy: by });
    expect(again.scheduleId).toBe(first.scheduleId);
    expect((await listTasks(h.client)).filter((t) => t.name === name)).toHaveLength(1);
    await expect(registerTask(h.client, h.taskQueue, def, { registeredBy: { ...by, callId: 'call-2' } })).rejects.toThrow(
      new TaskError(
        `a task named "${name}" already exists (0 9 * * 1-5, registered by conversation conv-1 (call call-1)): pick another name, or replace it`,
      ),
    );
    const replaced = await registerTask(h.client, h.taskQueue, { ...def, when: '@hourly' }, { registeredBy: { via: 'client' }, replace: true });
    expect(replaced).toMatchObject({ when: '@hourly', registeredBy: { via: 'client' } });
    expect((await listTasks(h.client)).filter((t) => t.name === name)).toHaveLength(1);
  });

  it('computes fire times in the task timezone across a daylight-saving change, as the server does', async () => {
    // Paris moves from UTC+1 to UTC+2 on 2026-03-29: 09:00 local is 08:00Z before and 07:00Z after.
    const w = parseWhen('0 9 * * *', 'Europe/Paris', new Date('2026-03-28T06:00:00Z'));
    expect(w.next.map((d) => d.toISOString())).toEqual(['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z']);
    // Day-of-month and day-of-week both restricted: either one matches (classic cron), as two calendars.
    const either = parseWhen('0 0 1,15 * 1', 'UTC', new Date('2026-12-01T12:00:00Z'));
    expect(either.next.map((d) => d.toISOString().slice(0, 10))).toEqual(['2026-12-07', '2026-12-14', '2026-12-15']);
    // And the server agrees with our spec for now-ish times in a zone (its own tz database).
    h = await createHarness([]);
    for (const [when, tz] of [
      ['0 9 * * 1-5', 'America/New_York'],
      ['0 0 1,15 * 1', 'UTC'],
      ['*/10 * * * * *', 'Asia/Kolkata'],
      ['every 2h', 'UTC'],
    ] as const) {
      const name = `tz-${when.replace(/[^a-z0-9]+/gi, '')}-${stamp}`.toLowerCase().slice(0, 60);
      created.add(name);
      const now = new Date();
      const local = parseWhen(when, tz, now);
      await registerTask(h.client, h.taskQueue, { name, when, timezone: tz, prompt: 'x' }, { registeredBy: { via: 'client' }, now });
      const server = (await h.client.schedule.getHandle(scheduleIdOf(name)).describe()).info.nextActionTimes;
      // The server lists from its own "now", which may be a fire time later than ours.
      const ours = local.next.map((d) => d.getTime()).filter((t) => t >= server[0]!.getTime());
      expect(ours.length, when).toBeGreaterThan(0);
      expect(
        server.slice(0, ours.length).map((d) => d.getTime()),
        when,
      ).toEqual(ours);
      await deleteTask(h.client, name);
    }
  });
});

describe('cron extensions (issue 18)', () => {
  it('an nth weekday (1#2) fires on second Mondays only, and the model is told the server’s times', async () => {
    const name = `second-monday-${stamp}`;
    created.add(name);
    h = await createHarness([
      toolCall('task_register', { task_name: name, cron: '0 0 * * 1#2', task_prompt: 'Monthly review.' }, 'r1'),
      answer('Registered.'),
    ]);
    await h.run(async () => (await h.hermes.start({ prompt: 'every second Monday' })).result());
    const server = (await h.client.schedule.getHandle(scheduleIdOf(name)).describe()).info.nextActionTimes;
    expect(server.length).toBeGreaterThanOrEqual(3);
    for (const t of server) {
      expect(t.getUTCDay(), t.toISOString()).toBe(1);
      expect(t.getUTCDate(), t.toISOString()).toBeGreaterThanOrEqual(8);
      expect(t.getUTCDate(), t.toISOString()).toBeLessThanOrEqual(14);
    }
    const text = toolResult(h.mock.requests[1]!.messages, 'r1')!;
    expect(text).toContain(
      `Next runs: ${server
        .slice(0, 3)
        .map((t) => formatFireTime(t, 'UTC'))
        .join('; ')}.`,
    );
  });

  it('every extension cron-parser accepts fires on the server when cron-parser says, years ahead too', async () => {
    h = await createHarness([]);
    const cases: Array<[string, string]> = [
      ['0 0 * * 1#2', 'UTC'],
      ['30 9 * * 5#5', 'Europe/Paris'],
      ['0 0 * * 7#1', 'UTC'],
      ['0 0 L * *', 'UTC'],
      ['0 18 L 2,3 *', 'America/New_York'],
      ['0 0 L 2 *', 'UTC'],
      ['0 9 * * 5L', 'Europe/Paris'],
      ['0 6 * 2 0L', 'UTC'],
      ['0 9 * * 1L,3', 'UTC'],
      ['0 12 1,L * 1#3', 'UTC'],
      ['0 12 15 * 5L', 'Asia/Kolkata'],
      ['0 0 29 2 *', 'UTC'],
      ['0 0 31 * *', 'UTC'],
      ['0 0 ? * MON', 'UTC'],
      ['H H * * *', 'UTC'],
      ['H(0-29)/10 * * * *', 'UTC'],
      ['*/20 0 0 * * *', 'UTC'],
      ['0 0 1-20/5 * *', 'UTC'],
      ['0 9-17/4 * JAN-MAR/2 MON-FRI', 'Europe/Paris'],
      ['@weekends', 'UTC'],
    ];
    // From a year before a common February and from one before a leap February (the server's list starts at
    // the schedule's startAt when that is in the future).
    const starts = ['2027-01-15T00:00:07Z', '2028-01-15T00:00:07Z'].map((s) => new Date(s));
    for (const [when, timezone] of cases) {
      for (const start of starts) {
        const w = parseWhen(when, timezone, start, 'seed-task');
        const scheduleId = `cron-ext-${stamp}-${created.size}-${Math.random().toString(36).slice(2, 8)}`;
        const handle = await h.client.schedule.create({
          scheduleId,
          spec: { ...w.spec, startAt: start },
          action: { type: 'startWorkflow', workflowType: 'conversationWorkflow', taskQueue: h.taskQueue, args: [] },
          state: { paused: true },
        });
        try {
          const server = (await handle.describe()).info.nextActionTimes.map((t) => t.toISOString());
          expect(server, `${when} (${timezone}) from ${start.toISOString()}`).toHaveLength(10);
          const ours = CronExpressionParser.parse(when, { tz: timezone, currentDate: start, hashSeed: 'seed-task' })
            .take(10)
            .map((d) => d.toDate().toISOString());
          expect(server, `${when} (${timezone}) from ${start.toISOString()}`).toEqual(ours);
          expect(w.next.map((d) => d.toISOString())).toEqual(ours.slice(0, 3));
        } finally {
          await handle.delete();
        }
      }
    }
  }, 60_000);

  it('refuses what Temporal cannot express or cron-parser does not know, saying what is wrong', () => {
    const now = new Date('2026-12-01T12:00:00Z');
    const cases: Array<[string, RegExp]> = [
      ['0 0 15W * *', /"15W": W \(the nearest weekday\) is not supported/],
      ['0 0 LW * *', /"LW": W \(the nearest weekday\) is not supported/],
      ['0 0 L-2 * *', /L is supported alone in the day of month \(L = its last day\) and after a weekday \(5L = the last Friday\)/],
      ['0 0 * * L', /L is supported alone in the day of month/],
      ['0 0 * * 1#6', /not a valid cron expression/],
    ];
    for (const [when, message] of cases) expect(() => parseWhen(when, 'UTC', now), when).toThrow(message);
  });

  it('H is spread by the task name: the same for every parse of one task, the model told what the server runs', () => {
    const a = parseWhen('H H * * *', 'UTC', new Date('2026-12-01T12:00:00Z'), 'task-a');
    const again = parseWhen('H H * * *', 'UTC', new Date('2026-12-01T12:00:00Z'), 'task-a');
    expect(again.spec).toEqual(a.spec);
    expect(again.next).toEqual(a.next);
    const others = ['task-b', 'task-c', 'task-d', 'task-e'].map((s) => parseWhen('H H * * *', 'UTC', new Date('2026-12-01T12:00:00Z'), s).spec);
    expect(others.some((s) => JSON.stringify(s) !== JSON.stringify(a.spec))).toBe(true);
  });

  it('a one-shot or interval past what the server accepts is refused with the reason, not a server error', async () => {
    const now = new Date('2026-12-01T12:00:00Z');
    expect(() => parseWhen('in 999999d', 'UTC', now)).toThrow(
      /"in 999999d" would fire in the year 4764: Temporal schedules fire up to the year 2100/,
    );
    expect(() => parseWhen('2150-01-01T00:00', 'UTC', now)).toThrow(/would fire in the year 2150: Temporal schedules fire up to the year 2100/);
    expect(() => parseWhen(`in ${'9'.repeat(400)}d`, 'UTC', now)).toThrow(/Temporal schedules fire up to the year 2100/);
    expect(() => parseWhen('every 999999d', 'UTC', now)).toThrow(
      /"every 999999d" would first fire in the year 4707: Temporal schedules fire up to the year 2100/,
    );
    // The last second the server takes still is one.
    expect(parseWhen('2100-12-31T23:59:59Z', 'UTC', now).next).toEqual([new Date('2100-12-31T23:59:59Z')]);
    h = await createHarness([]);
    const name = `far-${stamp}`;
    created.add(name);
    await expect(registerTask(h.client, h.taskQueue, { name, when: 'in 999999d', prompt: 'x' }, { registeredBy: { via: 'client' } })).rejects.toThrow(
      /Temporal schedules fire up to the year 2100/,
    );
    await expect(describeTask(h.client, name)).rejects.toThrow(TaskError);
    // The edge, registered: the server lists it.
    const edge = await registerTask(h.client, h.taskQueue, { name, when: '2100-12-31T23:59:59Z', prompt: 'x' }, { registeredBy: { via: 'client' } });
    expect(edge.nextRuns).toEqual([new Date('2100-12-31T23:59:59Z')]);
  });
});
