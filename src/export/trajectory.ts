// One finished conversation as a training/review record (`hermes export`, `hermes.export()`): rebuilt from its
// history the way `hermes inspect --step` rebuilds a step (src/inspect/step-context.ts), so the messages are exactly what the
// model received — checked against each step's digest — plus the reply it sent last. Continue-as-new runs are
// one record. Nothing here is read from the live workflow except the `context` query, which a closed run answers
// by replaying (a worker, or this process: src/inspect/context-asker.ts).
import { defaultPayloadConverter } from '@temporalio/common';
import { contextAsker } from '../inspect/context-asker';
import type { ConversationReader } from '../inspect/reader';
import { fetchRuns, modelViewAt, stepRows, type ContextAsker, type HistoryEvent } from '../inspect/step-context';
import type { ConversationResult, Usage } from '../shared/contract';
import type { ChatMessage, ModelCallInput, ModelCallResult } from '../shared/wire';
import { toolDefinitions } from '../tools/registry';

export type ToolDefinition = ReturnType<typeof toolDefinitions>[number];

/** The `openai` form: OpenAI chat messages and tool definitions, as the model endpoint received them. */
export interface TrajectoryRecord {
  id: string;
  /** Every run of the conversation (continue-as-new chain), oldest first; runs past retention are missing. */
  runIds: string[];
  status: ConversationResult['status'];
  reason?: string;
  error?: string;
  /** The model that answered the last step (as the endpoint named it), and the profile it was called through. */
  model: string;
  profile: string;
  /** The tools offered (the last step that offered any), as OpenAI function definitions. */
  tools: ToolDefinition[];
  /** Offered tools this process has no definition for (a worker's custom, HTTP or MCP tools): names only. */
  toolsUnknown?: string[];
  /** What the model saw at its last step (system prompt first), then what it sent back. */
  messages: ChatMessage[];
  /**
   * When the context was rewritten (a compression, a prune) before the last step: each earlier context version as
   * the model last saw it, followed by its reply there, oldest first. `messages` alone is then not the whole story.
   */
  earlier?: Array<{ contextVersion: number; messages: ChatMessage[] }>;
  usage: Usage;
  iterations: number;
  modelCalls: number;
  toolCalls: number;
  startedAt: string;
  closedAt: string;
  durationMs: number;
  /** Per model and tool call: when it started, how long it took, attempts (from the history). */
  steps: Array<{
    step: number;
    kind: 'model' | 'tool';
    name: string;
    status: string;
    startedAt: string;
    durationMs: number | null;
    attempts: number;
  }>;
  /** Workflow ids of the sub-agents it started (delegate_task), in order. */
  subagents: string[];
  /** The conversation that started this one, when it is a sub-agent. */
  parentId?: string;
}

/** Why a conversation has no record (still running, or it never called the model). */
export class NotExportable extends Error {
  override name = 'NotExportable';
}

export interface BuildOptions {
  /** Answers the runs' `context` queries (default: server, else a replay here). */
  ask?: ContextAsker;
  /** Hears notes (a query answered by replaying here). */
  say?: (line: string) => void;
}

export async function buildTrajectory(hermes: ConversationReader, id: string, o: BuildOptions = {}): Promise<TrajectoryRecord> {
  const handle = hermes.get(id);
  const d = await handle.workflow.describe();
  if (d.status.name === 'RUNNING') throw new NotExportable(`${id} is still running`);
  const result = await handle.result();
  const runs = await fetchRuns(hermes.client, id);
  const rows = stepRows(runs);
  const models = rows.filter((r) => r.kind === 'model');
  const inputs = models.map((r) => r.input as ModelCallInput | undefined);
  const replies = modelReplies(runs);
  // The last step the conversation itself took (not a compression's summarising call), that completed.
  const usable = models.map((r, i) => i).filter((i) => models[i]!.status === 'completed' && inputs[i]?.purpose !== 'summary');
  const last = usable.at(-1);
  if (last === undefined) throw new NotExportable(`${id} has no completed model step`);
  const ask = o.ask ?? (await contextAsker(hermes, id, o.say));
  const view = await modelViewAt(hermes.client, id, models[last]!.step, ask, runs);
  const messages = [...view.messages, ...(await after(view, models[last]!.run, runs, ask, replies.get(models[last]!.step)))];
  // Earlier context versions: the last step of each, with its reply.
  const earlier: NonNullable<TrajectoryRecord['earlier']> = [];
  const lastOfVersion = new Map<number, number>();
  for (const i of usable) lastOfVersion.set(inputs[i]!.context.version, i);
  for (const [version, i] of [...lastOfVersion].sort((a, b) => a[0] - b[0])) {
    if (version === view.contextVersion) continue;
    const v = await modelViewAt(hermes.client, id, models[i]!.step, ask, runs);
    const reply = replies.get(models[i]!.step);
    earlier.push({ contextVersion: version, messages: [...v.messages, ...(reply ? [reply] : [])] });
  }
  const offered =
    [...usable]
      .reverse()
      .map((i) => inputs[i]!.tools)
      .find((t) => t.length) ?? [];
  const tools = toolDefinitions(offered);
  const unknown = offered.filter((n) => !tools.some((t) => t.function.name === n));
  const startedAt = millis(runs[0]?.[0]);
  const closedAt = millis(runs.at(-1)?.at(-1));
  return {
    id,
    runIds: runIdsOf(runs, d.runId),
    status: result.status,
    ...(result.reason ? { reason: result.reason } : {}),
    ...(result.error ? { error: result.error } : {}),
    model: models[last]!.name.replace(/^model /, '').replace(/ \(.*$/, ''),
    profile: view.profile,
    tools,
    ...(unknown.length ? { toolsUnknown: unknown } : {}),
    messages,
    ...(earlier.length ? { earlier } : {}),
    usage: result.usage,
    iterations: result.iterations,
    modelCalls: result.modelCalls,
    toolCalls: result.toolCalls,
    startedAt: new Date(startedAt).toISOString(),
    closedAt: new Date(closedAt).toISOString(),
    durationMs: closedAt - startedAt,
    steps: rows.map((r) => ({
      step: r.step,
      kind: r.kind,
      name: r.name,
      status: r.status,
      startedAt: r.startedAt,
      durationMs: r.durationMs,
      attempts: r.attempts,
    })),
    subagents: subagentIds(runs),
    ...(d.raw.workflowExecutionInfo?.parentExecution?.workflowId ? { parentId: d.raw.workflowExecutionInfo.parentExecution.workflowId } : {}),
  };
}

/**
 * What the workflow appended after the step's context: the reply and anything after it, from the run's own
 * context (same version); the step's reply alone when that version is gone.
 */
async function after(
  view: { contextVersion: number; messages: ChatMessage[] },
  run: number,
  runs: HistoryEvent[][],
  ask: ContextAsker,
  reply: ChatMessage | undefined,
): Promise<ChatMessage[]> {
  const runId = run < runs.length ? (runs[run]![0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined) : undefined;
  const slice = await ask(runId, { version: view.contextVersion, from: view.messages.length, to: Number.MAX_SAFE_INTEGER }).catch(() => undefined);
  if (slice && slice.version === view.contextVersion && slice.messages.length) return slice.messages;
  return reply ? [reply] : [];
}

/** Each completed model step's reply as the assistant message it became, by model-step number. */
function modelReplies(runs: HistoryEvent[][]): Map<number, ChatMessage> {
  const out = new Map<number, ChatMessage>();
  let n = 0;
  for (const events of runs) {
    const numberOf = new Map<string, number>();
    for (const e of events) {
      if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel') numberOf.set(String(e.eventId), ++n);
      const done = e.activityTaskCompletedEventAttributes;
      const k = done ? numberOf.get(String(done.scheduledEventId)) : undefined;
      const p = done?.result?.payloads?.[0];
      if (k === undefined || !p) continue;
      try {
        const r = defaultPayloadConverter.fromPayload<ModelCallResult>(p);
        out.set(k, { role: 'assistant', content: r.message.content, ...(r.message.tool_calls?.length ? { tool_calls: r.message.tool_calls } : {}) });
      } catch {
        // unreadable: no reply known
      }
    }
  }
  return out;
}

function subagentIds(runs: HistoryEvent[][]): string[] {
  const ids: string[] = [];
  for (const e of runs.flat()) {
    const w = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    if (w && !ids.includes(w)) ids.push(w);
  }
  return ids;
}

/** A run's id is in the start event of the run after it; the last run's is the described one. */
function runIdsOf(runs: HistoryEvent[][], latest: string): string[] {
  const ids = runs.slice(1).map((r) => r[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? '?');
  return [...ids, latest];
}

function millis(e: HistoryEvent | undefined): number {
  const t = e?.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
}
