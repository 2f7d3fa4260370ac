// `hermes schedule`: scheduled tasks (Temporal Schedules whose firings are conversations) from the command
// line — add, list, show, pause, resume, trigger, rm, runs. Each takes --json.
import { readConfig } from '../config/load';
import { parseArgs } from 'node:util';
import type { Hermes } from '../client';
import { checkedDefinition, HermesSchedules, TaskError, type TaskDefinition, type TaskInfo, type TaskRun } from '../schedules/client';
import { formatFireTime, WhenError } from '../schedules/when';
import { DEFAULT_LIMITS } from '../shared/defaults';
import { checkedWorkspace, maxIterationsOption, need, UsageError, withHermes } from './common';

const SUBCOMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  add,
  list,
  show,
  pause: (args) => setPaused(args, true),
  resume: (args) => setPaused(args, false),
  trigger,
  rm,
  runs,
};

export async function schedule(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const cmd = sub !== undefined && Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (!cmd) {
    const known = Object.keys(SUBCOMMANDS).join(', ');
    throw new UsageError(
      sub === undefined ? `hermes schedule needs a subcommand: ${known}` : `hermes schedule: unknown subcommand "${sub}" (${known})`,
    );
  }
  return cmd(rest);
}

/** The CLI registers as `the cli` (shown by show and in the schedule's note). */
const schedulesOf = (hermes: Hermes) => new HermesSchedules(hermes.client, hermes.taskQueue, { via: 'cli' });
const json = (v: unknown) => void process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
const out = (line: string) => void process.stdout.write(`${line}\n`);
const note = (line: string) => void process.stderr.write(`${line}\n`);
const NEXT_RUNS = 3;

async function add(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      cron: { type: 'string' },
      tz: { type: 'string' },
      workspace: { type: 'string' },
      model: { type: 'string' },
      tools: { type: 'string' },
      'max-iterations': { type: 'string' },
      webhook: { type: 'string' },
      description: { type: 'string' },
      replace: { type: 'boolean', default: false },
      'pause-on-failure': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const name = need(positionals[0], 'hermes schedule add needs a name and a prompt: hermes schedule add NAME --cron "0 9 * * 1-5" "what to do"');
  const prompt = positionals.slice(1).join(' ');
  if (!prompt.trim())
    throw new UsageError(`hermes schedule add ${name} needs a prompt: hermes schedule add ${name} --cron "0 9 * * 1-5" "what to do"`);
  const when = need(values.cron, 'hermes schedule add needs --cron: e.g. "0 9 * * 1-5", "@daily", "every 2h", "in 45m" or an ISO time');
  const maxIterations = maxIterationsOption(values['max-iterations']);
  const workspace = checkedWorkspace(values.workspace);
  const tools = values.tools
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const config: NonNullable<TaskDefinition['config']> = {
    ...(values.model ? { model: values.model } : {}),
    ...(workspace ? { workspace } : {}),
    ...(tools ? { tools } : {}),
    ...(maxIterations !== undefined ? { limits: { maxIterations } } : {}),
  };
  let def: TaskDefinition = {
    name,
    when,
    prompt,
    // The config file's schedules.timezone is this directory's default.
    ...((values.tz ?? readConfig()?.config.schedules?.timezone) ? { timezone: values.tz ?? readConfig()!.config.schedules!.timezone } : {}),
    ...(values.description ? { description: values.description } : {}),
    ...(values.webhook ? { webhook: values.webhook } : {}),
    ...(values['pause-on-failure'] ? { pauseOnFailure: true } : {}),
    ...(Object.keys(config).length ? { config } : {}),
  };
  // Everything that can be wrong with the definition is a usage error, found before connecting.
  try {
    def = checkedDefinition(def);
  } catch (err) {
    if (err instanceof TaskError || err instanceof WhenError) throw new UsageError(err.message);
    throw err;
  }
  return withHermes(async (hermes) => {
    const info = await schedulesOf(hermes)
      .create(def, { replace: values.replace })
      .catch((err: unknown) => {
        throw err instanceof TaskError && /already exists/.test(err.message) ? new TaskError(`${err.message} (hermes schedule add --replace)`) : err;
      });
    const next = info.nextRuns.slice(0, NEXT_RUNS);
    if (values.json) json({ ...info, nextRuns: next });
    else {
      out(`registered task ${info.name} (schedule ${info.scheduleId}): ${info.when} (${info.timezone})`);
      out(next.length ? `next runs:\n${next.map((t) => `  ${formatFireTime(t, info.timezone)}`).join('\n')}` : 'next runs: none');
    }
    const target = hermes.target;
    if (target?.embedded) {
      note(
        `firings need a running worker on task queue "${hermes.taskQueue}", and this command's worker stops with it: keep ` +
          '`hermes worker` running (it also keeps the embedded server up)' +
          (workspace ? `; it accepts ${workspace} only if it is under its HERMES_WORKSPACE_ROOTS (default: its current directory)` : '') +
          '.',
      );
    } else {
      note(
        `firings run on the workers of task queue "${hermes.taskQueue}" (hermes worker)` +
          (workspace ? `; ${workspace} must exist on them, under their HERMES_WORKSPACE_ROOTS` : '') +
          '.',
      );
    }
    return 0;
  });
}

async function list(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  return withHermes(async (hermes) => {
    const tasks = await schedulesOf(hermes).list();
    if (values.json) {
      json(tasks);
      return 0;
    }
    if (!tasks.length) note('no scheduled tasks (add one with: hermes schedule add NAME --cron "0 9 * * 1-5" "what to do")');
    const rows = tasks.map((t) => [
      t.name,
      stateOf(t),
      `${t.when} (${t.timezone})`,
      t.nextRuns[0] ? `next ${formatFireTime(t.nextRuns[0], t.timezone)}` : 'no next run',
      firstLine(t.description ?? t.prompt, 60),
    ]);
    for (const line of columns(rows)) out(line);
    return 0;
  });
}

async function show(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  const name = need(positionals[0], 'hermes schedule show needs a task name (see hermes schedule list)');
  return withHermes(async (hermes) => {
    const schedules = schedulesOf(hermes);
    const info = await schedules.describe(name);
    const def = await schedules.definition(name);
    const next = info.nextRuns.slice(0, NEXT_RUNS);
    if (values.json) {
      json({ ...info, nextRuns: next, definition: def });
      return 0;
    }
    out(`task ${info.name} (schedule ${info.scheduleId})`);
    out(`when: ${info.when} (${info.timezone})`);
    out(`state: ${stateOf(info)}${info.note ? ` — ${info.note}` : ''}`);
    if (info.remainingActions !== undefined) out(`remaining firings: ${info.remainingActions}`);
    if (info.description) out(`description: ${info.description}`);
    out(`prompt: ${info.prompt}`);
    const c = def.config ?? {};
    const config = [
      c.model ? `model ${c.model}` : '',
      c.tools ? `tools ${c.tools.join(',')}` : '',
      c.workspace ? `workspace ${c.workspace}` : '',
      // Every limit is registered; the ones that differ from today's defaults are worth a look.
      ...Object.entries(c.limits ?? {})
        .filter(([k, v]) => DEFAULT_LIMITS[k as keyof typeof DEFAULT_LIMITS] !== v)
        .map(([k, v]) => `${k} ${String(v)}`),
      c.approvalMode ? `approvalMode ${c.approvalMode}` : '',
    ].filter(Boolean);
    out(`run config: ${config.length ? config.join(' · ') : 'the worker defaults'}`);
    if (info.webhook) out(`webhook: ${info.webhook}`);
    out(
      `overlap: ${def.overlap ?? 'skip'} · catch-up window: ${def.catchupWindowSec ?? 600} s${def.pauseOnFailure ? ' · pauses when a firing fails' : ''}`,
    );
    if (info.registeredBy) out(`registered by: ${info.registeredBy.workflowId ?? `the ${info.registeredBy.via}`}`);
    out(next.length ? `next runs:\n${next.map((t) => `  ${formatFireTime(t, info.timezone)}`).join('\n')}` : 'next runs: none');
    if (info.recentRuns.length) {
      out('recent firings:');
      for (const r of info.recentRuns.slice(-5)) out(`  ${isoSeconds(r.scheduledAt)}  ${r.workflowId}`);
    }
    return 0;
  });
}

async function setPaused(args: string[], paused: boolean): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { note: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const verb = paused ? 'pause' : 'resume';
  const name = need(positionals[0], `hermes schedule ${verb} needs a task name (see hermes schedule list)`);
  return withHermes(async (hermes) => {
    const schedules = schedulesOf(hermes);
    if (paused) await schedules.pause(name, values.note);
    else await schedules.resume(name, values.note);
    const info = await schedules.describe(name);
    if (values.json) {
      json(info);
      return 0;
    }
    out(
      `${paused ? 'paused' : 'resumed'} task ${name}${info.nextRuns[0] && !paused ? `; next run ${formatFireTime(info.nextRuns[0], info.timezone)}` : ''}`,
    );
    return 0;
  });
}

/**
 * Fires the task now and prints the firing's workflow id. In embedded mode the firing runs on this command's
 * worker, so the command waits for it and prints its answer; that worker takes the task's workspace as one of
 * its roots, as `hermes run --workspace` does (add accepted it from this user).
 */
async function trigger(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  const name = need(positionals[0], 'hermes schedule trigger needs a task name (see hermes schedule list)');
  const taskWorkspace = async (hermes: Hermes) =>
    hermes.target?.embedded ? (await schedulesOf(hermes).definition(name)).config?.workspace : undefined;
  return withHermes(
    async (hermes) => {
      const schedules = schedulesOf(hermes);
      const before = new Set((await schedules.describe(name)).recentRuns.map((r) => r.workflowId));
      await schedules.trigger(name);
      const workflowId = await newFiring(schedules, name, before);
      const embedded = Boolean(hermes.target?.embedded);
      if (!embedded || !workflowId) {
        if (values.json) json({ name, workflowId: workflowId ?? null });
        else
          out(
            workflowId
              ? `triggered task ${name}: ${workflowId}`
              : `triggered task ${name} (its firing has not shown up yet: hermes schedule runs ${name})`,
          );
        return 0;
      }
      note(`triggered task ${name}: ${workflowId}; running it on this command's worker`);
      const result = await hermes.get(workflowId).result();
      if (values.json) json({ name, workflowId, ...result });
      else {
        out(result.answer);
        note(`status: ${result.status}${result.reason ? ` (${result.reason})` : ''} · workflow id: ${workflowId}`);
        if (result.error) note(`error: ${result.error}`);
      }
      return result.status === 'completed' ? 0 : 1;
    },
    { workspace: taskWorkspace },
  );
}

/** The workflow id of the firing a trigger started (the schedule records it within a moment). */
async function newFiring(schedules: HermesSchedules, name: string, before: Set<string>): Promise<string | undefined> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const fresh = (await schedules.describe(name)).recentRuns.find((r) => !before.has(r.workflowId));
    if (fresh) return fresh.workflowId;
    await new Promise((r) => setTimeout(r, 200));
  }
  return undefined;
}

async function rm(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  const name = need(positionals[0], 'hermes schedule rm needs a task name (see hermes schedule list)');
  return withHermes(async (hermes) => {
    await schedulesOf(hermes).delete(name);
    if (values.json) json({ name, deleted: true });
    else out(`deleted task ${name} (its past firings stay in the workflow list)`);
    return 0;
  });
}

async function runs(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { limit: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const name = need(positionals[0], 'hermes schedule runs needs a task name (see hermes schedule list)');
  const limit = values.limit === undefined ? 10 : Number(values.limit);
  if (!(Number.isInteger(limit) && limit > 0)) throw new UsageError(`--limit must be a positive whole number, got "${values.limit}"`);
  return withHermes(async (hermes) => {
    const firings = await schedulesOf(hermes).runs(name, limit);
    if (values.json) {
      json(firings);
      return 0;
    }
    if (!firings.length) note(`task ${name} has no firings yet`);
    const rows = firings.map((r) => [statusOf(r), r.startedAt ? isoSeconds(r.startedAt) : '-', r.workflowId, firstLine(r.answer ?? '', 100)]);
    for (const line of columns(rows)) out(line);
    return 0;
  });
}

function stateOf(t: TaskInfo): string {
  if (t.paused) return 'paused';
  return t.remainingActions === 0 ? 'done' : 'active';
}

/** The conversation's status (with its reason), or Temporal's while it runs or when it did not end normally. */
function statusOf(r: TaskRun): string {
  if (!r.status) return r.execution;
  return r.reason ? `${r.status} (${r.reason})` : r.status;
}

function isoSeconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

function firstLine(text: string, max: number): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Rows as aligned columns (the last column is not padded). */
function columns(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]!.length))) ?? [];
  return rows.map((r) =>
    r
      .map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i]!) : cell))
      .join('  ')
      .trimEnd(),
  );
}
