// Runs a suite: every task K times, N at a time, each run an ordinary conversation started with the client (so a
// cluster spreads them over all its workers), in a workspace made fresh for it; its checks run here once it has
// ended. Every run ends with a verdict and a reason: checks, the conversation's status, a timeout or an error.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ConversationHandle, Hermes } from '../client';
import type { RunStatus, Usage } from '../shared/contract';
import { runChecks, type CheckResult } from './checks';
import { faultsOf, type FaultCount } from './fault-count';
import type { EvalTask, Suite } from './suite';
import { prepareWorkspace } from './workspace';

/** What a run offers when neither the task nor the suite names tools: the upstream agent's terminal and file toolsets. */
export const DEFAULT_EVAL_TOOLS = ['files', 'terminal'];

/** How long after a task's maxDurationSec the eval stops waiting and cancels the conversation. */
const GRACE_SEC = 60;

export interface EvalOptions {
  concurrency: number;
  repeat: number;
  /** Model profile for every task (else the task's, the suite's, the worker's default). */
  model?: string;
  /** Where the run workspaces are made (one folder per eval, one per run under it). */
  workdir: string;
  /** Names this eval in workflow ids (`eval-NAME-TASK-rK`); default a fresh stamp. */
  name?: string;
  /** Hears each run as it ends. */
  onRun?: (r: RunRecord, done: number, total: number) => void;
}

export type RunOutcome = RunStatus | 'timeout' | 'error';

export interface RunRecord {
  task: string;
  /** 1..K */
  repeat: number;
  workflowId?: string;
  pass: boolean;
  /** The conversation's status; `timeout`: the eval cancelled it; `error`: it did not run (setup, start). */
  status: RunOutcome;
  /** Why it did not pass: the first failed check, or the status with its failure type. */
  reason?: string;
  /** The conversation's error message, when it failed. */
  error?: string;
  checks: CheckResult[];
  answer: string;
  iterations: number;
  modelCalls: number;
  toolCalls: number;
  usage: Usage;
  wallMs: number;
  faults: FaultCount;
  workspace: string;
}

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 };

export function evalStamp(): string {
  return `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
}

export async function runSuite(hermes: Hermes, suite: Suite, opts: EvalOptions): Promise<RunRecord[]> {
  const name = opts.name ?? evalStamp();
  const root = path.join(opts.workdir, `${suite.name}-${name}`);
  const jobs = suite.tasks.flatMap((task) => Array.from({ length: opts.repeat }, (_, i) => ({ task, repeat: i + 1 })));
  // Round-robin over tasks: the first results cover every task, and a slow task does not hold one slot K times.
  jobs.sort((a, b) => a.repeat - b.repeat);
  const records: RunRecord[] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      const { task, repeat } = jobs[i]!;
      const workspace = path.join(root, `${task.id}-r${repeat}`);
      const id = `eval-${suite.name}-${name}-${task.id}-r${repeat}`.slice(0, 200);
      records[i] = await runOne(hermes, task, repeat, { id, workspace, model: opts.model });
      opts.onRun?.(records[i], ++done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, jobs.length) }, worker));
  return records;
}

async function runOne(hermes: Hermes, task: EvalTask, repeat: number, o: { id: string; workspace: string; model?: string }): Promise<RunRecord> {
  const base = {
    task: task.id,
    repeat,
    workspace: o.workspace,
    checks: [] as CheckResult[],
    answer: '',
    iterations: 0,
    modelCalls: 0,
    toolCalls: 0,
    usage: NO_USAGE,
    faults: { total: 0, byType: {} },
  };
  const t0 = Date.now();
  try {
    await prepareWorkspace(task, o.workspace);
  } catch (e) {
    return { ...base, pass: false, status: 'error', reason: `workspace: ${(e as Error).message}`, wallMs: 0 };
  }
  const started = Date.now();
  let handle: ConversationHandle;
  try {
    const model = o.model ?? task.model;
    handle = await hermes.start({
      id: o.id,
      prompt: task.prompt,
      workspace: o.workspace,
      tools: task.tools ?? DEFAULT_EVAL_TOOLS,
      ...(model ? { model } : {}),
      ...(task.system ? { system: task.system } : {}),
      ...task.budgets,
      // Nobody is there to approve: a command that needs approval is refused, and the model hears so.
      approvalMode: 'deny',
      summary: `eval ${task.id} #${repeat}`,
    });
  } catch (e) {
    return { ...base, pass: false, status: 'error', reason: `start: ${(e as Error).message}`, wallMs: Date.now() - t0 };
  }
  const limitSec = (task.budgets.maxDurationSec ?? 0) + GRACE_SEC;
  const outcome = await resultWithin(handle, limitSec * 1000);
  const wallMs = Date.now() - started;
  const faults = await faultsOf(hermes.client, handle.id).catch(() => base.faults);
  if ('error' in outcome) {
    const used = outcome.state
      ? { iterations: outcome.state.iteration, modelCalls: outcome.state.modelCalls, toolCalls: outcome.state.toolCalls, usage: outcome.state.usage }
      : {};
    return {
      ...base,
      ...used,
      workflowId: handle.id,
      pass: false,
      status: outcome.timedOut ? 'timeout' : 'error',
      reason: outcome.error,
      wallMs,
      faults,
    };
  }
  const r = outcome.result;
  const checks = await runChecks(task.checks, o.workspace, r.answer);
  const failed = checks.find((c) => !c.ok);
  const pass = r.status === 'completed' && !failed;
  const reason = pass ? undefined : r.status !== 'completed' ? `${r.status}${r.reason ? ` (${r.reason})` : ''}` : `check: ${failed!.detail}`;
  return {
    ...base,
    workflowId: handle.id,
    pass,
    status: r.status,
    ...(reason ? { reason } : {}),
    ...(r.error ? { error: r.error } : {}),
    checks,
    answer: r.answer,
    iterations: r.iterations,
    modelCalls: r.modelCalls,
    toolCalls: r.toolCalls,
    usage: r.usage,
    wallMs,
    faults,
  };
}

export type Outcome =
  | { result: Awaited<ReturnType<ConversationHandle['result']>> }
  | { error: string; timedOut: boolean; state?: Awaited<ReturnType<ConversationHandle['state']>> };

/** The result, or after `ms` a cancellation (and the result it leads to, if it comes within 30 s). */
export async function resultWithin(handle: ConversationHandle, ms: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const result = handle.result({ onUnreachable: () => undefined });
  result.catch(() => undefined);
  try {
    const first = await Promise.race([result, late]);
    if (first !== 'late') return { result: first };
  } catch (e) {
    return { error: (e as Error).message, timedOut: false };
  } finally {
    clearTimeout(timer);
  }
  // What it had used by then (the state query), before the cancellation ends it.
  const state = await handle.state().catch(() => undefined);
  await handle.cancel().catch(() => undefined);
  return { error: `no result within ${Math.round(ms / 1000)} s: cancelled`, timedOut: true, ...(state ? { state } : {}) };
}
