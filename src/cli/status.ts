// `hermes status`: a conversation's live state (budgets, todo, pending questions, the last steps). The server's
// own word comes first: a workflow that ended without a result (cancelled, terminated, timed out, failed) is
// reported so, whatever a replay of its state says; without a worker to answer the state query, that is said.
import { parseArgs } from 'node:util';
import type { ConversationHandle, Hermes, InFlightCall, TemporalStatus } from '../client';
import { inFlightSummary } from '../inspect/in-flight';
import { modelStepNumbers } from '../inspect/step-context';
import type { ConversationState } from '../shared/contract';
import { lazyModule } from '../shared/lazy-module';
import { formatChild, formatStep, UsageError, withHermes } from './common';
import { closedRunQuery } from '../inspect/closed-query';
import { watchWorker } from './pollers';

/** Temporal's closed states that end a conversation without its own result, as status names them. */
const CLOSED: Partial<Record<TemporalStatus, string>> = {
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  FAILED: 'failed',
};

export async function status(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const id = positionals[0];
  if (!id) throw new UsageError('hermes status needs a workflow id');
  return withHermes(async (hermes) => {
    const handle = hermes.get(id);
    const temporalStatus = await handle.temporalStatus();
    const closed = CLOSED[temporalStatus];
    let s: ConversationState | undefined;
    let queryError: Error | undefined;
    if (temporalStatus === 'RUNNING') {
      try {
        s = await stateWatched(hermes, handle, true);
      } catch (e) {
        queryError = e as Error;
      }
    } else {
      // A finished run is answered by a worker replaying it; without one, its history is replayed here.
      const taskQueue = (await handle.workflow.describe()).taskQueue;
      try {
        s = await closedRunQuery(hermes.client, handle, taskQueue, () => handle.state());
      } catch (e) {
        let why = '';
        // Loaded only here: replaying needs the worker package, which a status answered by a worker never loads.
        const { replayRun } = await lazyModule(
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- see src/shared/lazy-module.ts
          () => require('../inspect/replay-query') as typeof import('../inspect/replay-query'),
          () => import('../inspect/replay-query'),
        );
        const replayed = await replayRun(hermes.client, id, undefined, (w) => (why = w)).catch((err: Error) => ((why = err.message), undefined));
        if (replayed?.state) {
          s = replayed.state;
          process.stderr.write(`(${(e as Error).message}: answered by replaying the history here)\n`);
        } else {
          queryError = new Error(`${(e as Error).message} to replay it, and it cannot be replayed here: ${why}`);
        }
      }
    }
    if (s && closed) s = { ...s, status: closed as ConversationState['status'] };
    // The model or tool call under way, from the server (also when no worker answers the state query).
    const inFlight: InFlightCall[] = temporalStatus === 'RUNNING' ? await handle.inFlight().catch(() => []) : [];
    if (values.json) {
      const out = s
        ? { ...s, temporalStatus, inFlight }
        : { id, status: closed ?? temporalStatus.toLowerCase(), temporalStatus, inFlight, error: queryError?.message };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return s ? 0 : 1;
    }
    if (!s) {
      process.stdout.write(`${id}: ${closed ?? temporalStatus.toLowerCase()} (Temporal: ${temporalStatus})\n`);
      process.stderr.write(`no state: the state query failed: ${queryError?.message}\n`);
      for (const c of inFlight) process.stdout.write(`${inFlightSummary(c)}\n`);
      return 1;
    }
    process.stdout.write(
      `${id}: ${s.status}${closed ? ` (Temporal: ${temporalStatus})` : ''} · iteration ${s.iteration}${s.maxIterations > 0 ? `/${s.maxIterations}` : ' (no step cap)'} · ` +
        `tokens ${s.usage.totalTokens} · tool calls ${s.toolCalls} · runs ${s.runs}\n`,
    );
    const b = s.budgets;
    const left = [
      b.iterations ? `iterations left ${b.iterations.left}` : '',
      b.tokens ? `tokens left ${b.tokens.left}` : '',
      b.costUsd ? `cost left $${b.costUsd.left.toFixed(4)}` : '',
      b.seconds ? `time left ${b.seconds.left} s` : '',
    ].filter(Boolean);
    process.stdout.write(`budgets: ${left.length ? left.join(' · ') : 'none (no step cap, no token, cost or time limit)'}\n`);
    if (s.status === 'failed' || s.error) process.stdout.write(`${s.reason ?? 'error'}${s.error ? `: ${s.error}` : ''}\n`);
    if (s.children?.length) {
      const running = s.children.filter((c) => c.status === 'running' || c.status === 'waiting' || c.status === 'queued').length;
      process.stdout.write(`sub-agents (latest delegate_task, ${running} still running):\n`);
      for (const c of s.children) process.stdout.write(`${formatChild(c, id)}\n`);
    }
    if (!closed) {
      if (s.pendingQuestion) process.stdout.write(`question (${s.pendingQuestion.callId}): ${s.pendingQuestion.question}\n`);
      for (const a of s.pendingApprovals) {
        const who = a.child ? ` (sub-agent ${a.child.workflowId}: ${a.child.goal.split('\n')[0]!.slice(0, 80)})` : '';
        process.stdout.write(`approval ${a.callId}${who}: ${a.tool} ${a.command} — ${a.reason}\n`);
      }
    }
    for (const t of s.todo) process.stdout.write(`todo [${t.status}] ${t.id}. ${t.content}\n`);
    // Without a cursor the state query returns the last 5 steps; model steps carry the number inspect --step takes.
    const completed = await handle.modelSteps().catch(() => undefined);
    const numbers = completed ? modelStepNumbers(s.steps, completed) : [];
    s.steps.forEach((step, i) => process.stdout.write(`${formatStep(step, numbers[i])}\n`));
    for (const c of inFlight) process.stdout.write(`${inFlightSummary(c)}\n`);
    return 0;
  });
}

/** The state query; while it goes unanswered for 5 s on a running conversation, the task queue's pollers are looked at. */
async function stateWatched(hermes: Hermes, handle: ConversationHandle, running: boolean): Promise<ConversationState> {
  if (!running) return handle.state();
  const done = new AbortController();
  let answered = false;
  const watching = watchWorker(hermes, { started: () => answered, signal: done.signal });
  try {
    return await handle.state();
  } finally {
    answered = true;
    done.abort();
    await watching;
  }
}
