// `hermes list`: the conversations of a task queue from visibility (ListWorkflowExecutions), with what the
// search attributes say (HermesStatus, HermesModel, HermesIterations, HermesWaitingFor). No workflow is replayed or
// queried: per row, the run's first history event gives the prompt, and a closed run's close event its totals.
// What neither tells is null — tokens of a running conversation (no search attribute carries them), anything of a
// conversation started with searchAttributes off — rather than a guess.
import { textTable } from '../shared/text-table';
import { type WorkflowExecutionInfo } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { decodeStoredValue } from '../storage/decode';
import { ConversationHandle, type Hermes } from '../client';
import { HermesIterations, HermesModel, HermesStatus, HermesWaitingFor } from '../shared/search-attributes';

export interface ConversationRow {
  id: string;
  runId: string;
  /** How it stands: HermesStatus while running (running, waiting, idle), the result's status once closed. */
  status: string;
  /** The workflow's status on the server (RUNNING, COMPLETED, FAILED, TERMINATED, …). */
  temporalStatus: string;
  /** The profile (HermesModel search attribute); null when the conversation did not publish one. */
  model: string | null;
  /** Iterations: exact once closed (its result); while running, as last published (at most a few seconds old). */
  iterations: number | null;
  /** Total tokens: from the result once closed; null while running or when the result carries none. */
  tokens: number | null;
  costUsd: number | null;
  waitingFor: string | null;
  startedAt: string;
  closedAt: string | null;
  /** Seconds since it started. */
  ageSec: number;
  /** First line of the prompt (a chat's first message); null when it cannot be read (encrypted, no key). */
  prompt: string | null;
  /** The conversation that started it, for a sub-agent. */
  parentId: string | null;
}

export interface ListOptions {
  /** HermesStatus values (running, waiting, idle, completed, failed, …). */
  status?: string[];
  /** Any visibility filter, ANDed with the task queue's conversations. */
  query?: string;
  /** Newest first, at most this many (default 50). */
  limit?: number;
  now?: Date;
}

const STATUS_WORD = /^[a-z_]+$/;

export function listQuery(taskQueue: string, o: Pick<ListOptions, 'status' | 'query'>): string {
  const parts = [
    'WorkflowType = "conversationWorkflow"',
    `TaskQueue = "${taskQueue.replace(/["\\]/g, '\\$&')}"`,
    'ExecutionStatus != "ContinuedAsNew"',
  ];
  if (o.status?.length) {
    const bad = o.status.find((s) => !STATUS_WORD.test(s));
    if (bad) throw new Error(`--status "${bad}": a status such as running, waiting, idle, completed, failed`);
    parts.push(o.status.length === 1 ? `HermesStatus = "${o.status[0]}"` : `HermesStatus IN (${o.status.map((s) => `"${s}"`).join(', ')})`);
  }
  if (o.query?.trim()) parts.push(`(${o.query})`);
  return parts.join(' AND ');
}

export async function listConversations(hermes: Hermes, o: ListOptions = {}): Promise<ConversationRow[]> {
  const limit = o.limit ?? 50;
  const infos: WorkflowExecutionInfo[] = [];
  for await (const w of hermes.client.workflow.list({ query: listQuery(hermes.taskQueue, o), pageSize: Math.min(limit, 1000) })) {
    infos.push(w);
    if (infos.length >= limit) break;
  }
  const now = (o.now ?? new Date()).getTime();
  return mapLimited(infos, 16, (w) => rowOf(hermes, w, now));
}

async function rowOf(hermes: Hermes, w: WorkflowExecutionInfo, now: number): Promise<ConversationRow> {
  const sa = w.typedSearchAttributes;
  const running = w.status.name === 'RUNNING';
  const [prompt, result] = await Promise.all([
    firstPromptLine(hermes, w).catch(() => null),
    running
      ? undefined
      : new ConversationHandle(hermes.client.workflow.getHandle(w.workflowId, w.runId))
          .result({ maxOutageMs: 0, onUnreachable: () => undefined })
          .catch(() => undefined),
  ]);
  const published = sa.get(HermesStatus) ?? null;
  // A result with runs 0 is one whose totals could not be read (terminated, timed out): unknown, not zero.
  const known = result && result.runs > 0 ? result : undefined;
  return {
    id: w.workflowId,
    runId: w.runId,
    status: running ? (published ?? 'running') : (known?.status ?? closedStatus(w.status.name)),
    temporalStatus: w.status.name,
    model: sa.get(HermesModel) ?? null,
    iterations: known?.iterations ?? sa.get(HermesIterations) ?? null,
    tokens: known ? known.usage.totalTokens : null,
    costUsd: known ? known.usage.costUsd : null,
    waitingFor: running ? sa.get(HermesWaitingFor) || null : null,
    startedAt: w.startTime.toISOString(),
    closedAt: w.closeTime?.toISOString() ?? null,
    ageSec: Math.max(0, Math.round((now - w.startTime.getTime()) / 1000)),
    prompt,
    parentId: w.parentExecution?.workflowId ?? null,
  };
}

function closedStatus(name: string): string {
  return name === 'CANCELED' || name === 'CANCELLED' ? 'cancelled' : name.toLowerCase();
}

/** The prompt from the run's input (the first event; continue-as-new passes the same input on), first line. */
async function firstPromptLine(hermes: Hermes, w: WorkflowExecutionInfo): Promise<string | null> {
  const res = await hermes.client.workflowService.getWorkflowExecutionHistory({
    namespace: hermes.client.options.namespace,
    execution: { workflowId: w.workflowId, runId: w.runId },
    maximumPageSize: 1,
  });
  const started = res.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  const payload = started?.input?.payloads?.[0];
  if (!payload) return null;
  const input = await decodeStoredValue(hermes.client.options.loadedDataConverter, payload as Payload);
  const record = typeof input === 'object' && input !== null ? (input as { prompt?: unknown; mode?: unknown }) : undefined;
  const prompt = typeof input === 'string' ? input : typeof record?.prompt === 'string' ? record.prompt : '';
  const first = prompt.trim().split('\n')[0]!.slice(0, 200);
  if (record?.mode === 'chat') return first ? `chat: ${first}` : 'chat';
  return first;
}

async function mapLimited<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane));
  return out;
}

/** The table `hermes list` prints. */
export function formatList(rows: ConversationRow[]): string {
  const head = ['ID', 'STATUS', 'MODEL', 'ITER', 'TOKENS', 'WAITING', 'AGE', 'PROMPT'];
  const body = rows.map((r) => [
    r.id,
    r.status,
    r.model ?? '?',
    r.iterations === null ? '?' : String(r.iterations),
    r.tokens === null ? '?' : String(r.tokens),
    r.waitingFor ?? '-',
    age(r.ageSec),
    r.prompt === null ? '(unreadable)' : r.prompt.slice(0, 60),
  ]);
  return `${textTable(head, body)}\n`;
}

function age(sec: number): string {
  if (sec < 60) return `${sec}s`;
  if (sec < 3600) return `${Math.floor(sec / 60)}m`;
  if (sec < 86_400) return `${Math.floor(sec / 3600)}h`;
  return `${Math.floor(sec / 86_400)}d`;
}
