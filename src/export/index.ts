// Which conversations `hermes export` / `hermes.export()` writes, one record each: the ids given, or the finished
// conversations of the client's task queue that a visibility query finds (continue-as-new runs are one
// conversation: the chain's earlier runs are CONTINUED_AS_NEW and left out of the query).
import type { ConversationReader } from '../inspect/reader';
import { toShareGpt, type ShareGptRecord } from './sharegpt';
import { buildTrajectory, NotExportable, type TrajectoryRecord } from './trajectory';

export type { ShareGptRecord } from './sharegpt';
export type { TrajectoryRecord } from './trajectory';
export type ExportRecord = TrajectoryRecord | ShareGptRecord;

export interface ExportOptions {
  /** These conversations (workflow ids); otherwise the finished conversations `query` and `since` select. */
  ids?: string[];
  /** A visibility filter (`HermesStatus = "completed"`), combined with the task queue's conversations. */
  query?: string;
  /** Closed at or after this time: a Date, an ISO time, or an age such as `30m`, `12h`, `7d`. */
  since?: Date | string;
  /** `openai` (default): messages and tools as the endpoint received them; `sharegpt`: the upstream agent's shape. */
  format?: 'openai' | 'sharegpt';
  /** Also the sub-agents' own records, after their parent's (for ids; a query finds them by itself). */
  subagents?: boolean;
  /** Hears why a conversation was skipped (still running, never called the model) and other notes. */
  onSkip?: (id: string, why: string) => void;
  say?: (line: string) => void;
}

export async function* exportConversations(hermes: ConversationReader, o: ExportOptions = {}): AsyncGenerator<ExportRecord> {
  const format = o.format ?? 'openai';
  if (format !== 'openai' && format !== 'sharegpt') throw new Error(`unknown format "${String(format)}": openai or sharegpt`);
  const queue = o.ids?.length ? [...o.ids] : await finishedIds(hermes, o);
  const seen = new Set<string>();
  while (queue.length) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    let record: TrajectoryRecord;
    try {
      record = await buildTrajectory(hermes, id, o.say ? { say: o.say } : {});
    } catch (err) {
      if (!(err instanceof NotExportable)) throw err;
      o.onSkip?.(id, err.message);
      continue;
    }
    if (o.subagents && o.ids?.length) queue.unshift(...record.subagents);
    yield format === 'sharegpt' ? toShareGpt(record) : record;
  }
}

/** The visibility query for the finished conversations of the task queue (oldest first once listed). */
export function exportQuery(taskQueue: string, o: { query?: string; since?: Date | string }, now = new Date()): string {
  const parts = [
    'WorkflowType = "conversationWorkflow"',
    `TaskQueue = ${quote(taskQueue)}`,
    'ExecutionStatus != "Running"',
    'ExecutionStatus != "ContinuedAsNew"',
  ];
  if (o.since !== undefined) parts.push(`CloseTime >= ${quote(parseSince(o.since, now).toISOString())}`);
  if (o.query?.trim()) parts.push(`(${o.query})`);
  return parts.join(' AND ');
}

async function finishedIds(hermes: ConversationReader, o: ExportOptions): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of hermes.client.workflow.list({ query: exportQuery(hermes.taskQueue, o) })) ids.push(w.workflowId);
  return [...new Set(ids)].reverse();
}

/** A Date, an ISO time, or an age (`90s`, `30m`, `12h`, `7d`, `2w`) before `now`. */
export function parseSince(v: Date | string, now = new Date()): Date {
  if (v instanceof Date) return v;
  const age = /^(\d+)\s*(s|m|h|d|w)$/.exec(v.trim());
  if (age) {
    const unit = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }[age[2] as 's' | 'm' | 'h' | 'd' | 'w'];
    return new Date(now.getTime() - Number(age[1]) * unit * 1000);
  }
  const t = new Date(v);
  if (Number.isNaN(t.getTime())) throw new Error(`--since "${v}": an ISO time (2026-12-01, 2026-12-01T09:00Z) or an age (30m, 12h, 7d)`);
  return t;
}

function quote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
