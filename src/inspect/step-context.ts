// "What did the model see at step N?" Model activity inputs are references (context version + length +
// digest), so the answer is rebuilt: the step's reference comes from the history, the messages from the workflow
// (the single source of truth, append-only within a context version; older versions are rebuilt from the
// history by inspect/rebuild.ts) and the tool definitions from the registry. The digest proves the result.
import { answerSchema } from '../shared/contract';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, WorkflowNotFoundError, type LoadedDataConverter, type Payload } from '@temporalio/common';
import { decodeStoredPayloads } from '../storage/decode';
import { isEncrypted } from '../codec/aes';
import { contextQuery } from '../shared/messages';
import { rebuildContext } from './rebuild';
import { extendDigest } from '../shared/digest';
import type { ChatMessage, ContextQueryArgs, ContextSlice, ModelCallInput, ModelCallResult, ToolCallInput, ToolCallResult } from '../shared/wire';
import { toolDefinitions } from '../tools/registry';
import { clientDefinitions } from '../llm/answer-format';

type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;
export type HistoryEvent = NonNullable<History['events']>[number];

export interface StepRow {
  /** Model calls are numbered 1..n; a tool row carries the number of the model step that asked for it. */
  step: number;
  kind: 'model' | 'tool';
  name: string;
  run: number;
  startedAt: string;
  durationMs: number | null;
  bytesIn: number;
  bytesOut: number;
  status: 'completed' | 'failed' | 'timed out' | 'cancelled' | 'running';
  attempts: number;
  input: unknown;
  /** The decoded result of a completed tool activity (inspect rebuilds pruned contexts from them). */
  output?: unknown;
  /** A file-changing tool call: the workspace checkpoint of its step, from the result (`hermes rollback`). */
  checkpoint?: string;
  /** A model step's reasoning (never sent back to the model): tokens, and the excerpt the activity kept. */
  reasoning?: { tokens: number; chars: number; text: string };
}

/**
 * The histories of all runs of a conversation (continue-as-new chain), oldest first. Runs that have passed the
 * namespace's retention are gone: the chain then starts at the oldest run left, and `onGone` hears which
 * run could not be fetched.
 */
export async function fetchRunHistories(client: Pick<Client, 'workflow'>, workflowId: string, onGone?: (runId: string) => void): Promise<History[]> {
  const runs: History[] = [];
  let runId: string | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    let history: History;
    try {
      history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    } catch (err) {
      if (runId === undefined || !(err instanceof WorkflowNotFoundError)) throw err;
      onGone?.(runId);
      break;
    }
    runs.unshift(history);
    const prev = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!prev) break;
    runId = prev;
  }
  return runs;
}

/**
 * The events of all runs, with the payloads inspect reads (activity inputs and results, accepted update
 * arguments) run through the client's payload codecs first: an encrypted history (HERMES_PAYLOAD_KEY) reads in
 * clear with the key, and fails with a clear error without it.
 */
export async function fetchRuns(client: Client, workflowId: string, onGone?: (runId: string) => void): Promise<HistoryEvent[][]> {
  const runs = (await fetchRunHistories(client, workflowId, onGone)).map((h) => h.events ?? []);
  await decodePayloads(runs, client.options.loadedDataConverter, workflowId);
  return runs;
}

async function decodePayloads(runs: HistoryEvent[][], converter: LoadedDataConverter, workflowId: string): Promise<void> {
  const codecs = converter.payloadCodecs;
  for (const e of runs.flat()) {
    for (const holder of [
      e.activityTaskScheduledEventAttributes?.input,
      e.activityTaskCompletedEventAttributes?.result,
      e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args,
    ]) {
      if (!holder?.payloads?.length) continue;
      // References resolved first (a stored payload may itself be encrypted), then the codecs.
      const decoded = await decodeStoredPayloads(converter, holder.payloads as Payload[]);
      if (!codecs.length && decoded.some(isEncrypted)) {
        throw new Error(
          `the history of ${workflowId} is encrypted (binary/encrypted payloads): set HERMES_PAYLOAD_KEY (or ` +
            'HERMES_PAYLOAD_KEY_FILE) to the key its workers use',
        );
      }
      holder.payloads = decoded;
    }
  }
}

/**
 * The model-step numbers (1 = the conversation's first model call, as `inspect --step` counts them) of the model
 * calls that completed and whose completion the workflow has processed, oldest first: the i-th is the number of
 * the i-th model step record (`run` and `status` lines). Reads event types only, so no payload key is needed.
 */
export function completedModelSteps(runs: HistoryEvent[][]): number[] {
  const out: number[] = [];
  let n = 0;
  for (const events of runs) {
    const numberOf = new Map<string, number>();
    let unprocessed: number[] = [];
    for (const e of events) {
      const s = e.activityTaskScheduledEventAttributes;
      if (s) {
        if (s.activityType?.name === 'callModel') numberOf.set(String(e.eventId), ++n);
        continue;
      }
      const done = e.activityTaskCompletedEventAttributes;
      const k = done ? numberOf.get(String(done.scheduledEventId)) : undefined;
      if (k !== undefined) unprocessed.push(k);
      if (e.workflowTaskCompletedEventAttributes) {
        out.push(...unprocessed);
        unprocessed = [];
      }
    }
  }
  return out;
}

/**
 * Model-step numbers for step records: `modelSteps` are the numbers of the completed model calls (from
 * completedModelSteps), `before` how many model records came before `steps` (undefined: unknown, then the
 * last model record is taken to be the latest call). An `empty` record belongs to the call just before it.
 */
export function modelStepNumbers(steps: Array<{ kind: string; name: string }>, modelSteps: number[], before?: number): Array<number | undefined> {
  const calls = steps.filter((s) => s.kind === 'model' && s.name !== 'empty').length;
  let i = before ?? modelSteps.length - calls;
  let last: number | undefined;
  return steps.map((s) => {
    if (s.kind !== 'model') return undefined;
    if (s.name !== 'empty') last = i >= 0 ? modelSteps[i] : undefined;
    if (s.name !== 'empty') i++;
    return last;
  });
}

export function stepRows(runs: HistoryEvent[][]): StepRow[] {
  const rows: StepRow[] = [];
  let modelStep = 0;
  runs.forEach((events, runIndex) => {
    const byScheduled = new Map<string, StepRow>();
    const startedAt = new Map<string, number>();
    for (const e of events) {
      const id = String(e.eventId);
      const s = e.activityTaskScheduledEventAttributes;
      if (s) {
        const payload = s.input?.payloads?.[0];
        const input = payload ? decode(payload) : undefined;
        const isModel = s.activityType?.name === 'callModel';
        if (isModel) modelStep++;
        const summary = isModel && (input as ModelCallInput | undefined)?.purpose === 'summary';
        const row: StepRow = {
          step: modelStep,
          kind: isModel ? 'model' : 'tool',
          name: isModel
            ? `model (profile ${(input as ModelCallInput | undefined)?.profile ?? 'default'})${summary ? ' context summary' : ''}`
            : String((input as ToolCallInput | undefined)?.name ?? s.activityType?.name),
          run: runIndex + 1,
          startedAt: time(e),
          durationMs: null,
          bytesIn: size(payload),
          bytesOut: 0,
          status: 'running',
          attempts: 0,
          input,
        };
        byScheduled.set(id, row);
        startedAt.set(id, millis(e));
        rows.push(row);
        continue;
      }
      const end =
        e.activityTaskCompletedEventAttributes ??
        e.activityTaskFailedEventAttributes ??
        e.activityTaskTimedOutEventAttributes ??
        e.activityTaskCanceledEventAttributes;
      const started = e.activityTaskStartedEventAttributes;
      const key = String((end ?? started)?.scheduledEventId ?? '');
      const row = byScheduled.get(key);
      if (!row) continue;
      if (started) {
        row.attempts = started.attempt ?? 1;
        continue;
      }
      row.durationMs = millis(e) - (startedAt.get(key) ?? millis(e));
      if (e.activityTaskCompletedEventAttributes) {
        row.status = 'completed';
        const result = e.activityTaskCompletedEventAttributes.result?.payloads?.[0];
        row.bytesOut = size(result);
        if (row.kind === 'tool' && result) row.output = decode(result);
        const checkpoint = (row.output as Partial<ToolCallResult> | undefined)?.checkpoint;
        if (typeof checkpoint === 'string') Object.assign(row, { checkpoint, name: `${row.name} (checkpoint ${checkpoint.slice(0, 12)})` });
        // Named like run and status name it: by the model that answered (the profile until then).
        const out = row.kind === 'model' && result ? (decode(result) as Partial<ModelCallResult> | undefined) : undefined;
        if (typeof out?.model === 'string' && out.model) {
          const purpose = (row.input as ModelCallInput | undefined)?.purpose === 'summary' ? ' context summary' : '';
          row.name = `model ${out.model}${out.toolMode ? ` (${out.toolMode === 'text' ? 'text mode' : 'constrained'})` : ''}${purpose}`;
        }
        if (out?.reasoning) {
          row.reasoning = { tokens: out.usage?.reasoningTokens ?? 0, chars: out.reasoning.chars, text: out.reasoning.text };
          row.name += ` (reasoning ${row.reasoning.tokens} tokens)`;
        }
      } else if (e.activityTaskFailedEventAttributes) row.status = 'failed';
      else if (e.activityTaskTimedOutEventAttributes) row.status = 'timed out';
      else row.status = 'cancelled';
    }
  });
  return rows;
}

/** The texts of accepted `answer` updates (clarify answers), in history order. */
export function clarifyAnswers(runs: HistoryEvent[][]): string[] {
  const out: string[] = [];
  for (const e of runs.flat()) {
    const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    const payload = input?.name === 'answer' ? input.args?.payloads?.[0] : undefined;
    // Parsed as the workflow parsed it: `{ text }` or a bare string.
    const parsed = payload ? answerSchema().safeParse(decode(payload)) : undefined;
    if (parsed?.success) out.push(parsed.data.text);
  }
  return out;
}

export interface ModelView {
  step: number;
  /** The model that answered (as run and status name it), or the profile's when the call did not complete. */
  name: string;
  profile: string;
  contextVersion: number;
  /** The step's context version had been rewritten by a prune; its messages were rebuilt from the history. */
  rebuilt: boolean;
  /** The step's context version has since been rewritten (a compression, a prune); the run that had it kept a copy. */
  archived?: boolean;
  tools: ReturnType<typeof toolDefinitions>;
  messages: ChatMessage[];
  /** What the model thought before its reply at this step (not part of any context). */
  reasoning?: StepRow['reasoning'];
}

/**
 * Rebuilds exactly what the model received at model step `step`: the messages of the step's context version
 * from the conversation (its `context` query), or — when a prune has since rewritten that version — from the
 * current messages and the history (inspect/rebuild.ts), checked against the step's digest either way.
 */
/** Asks the `context` query of a run (undefined: the latest): by default the server, which needs a worker. */
export type ContextAsker = (runId: string | undefined, args: ContextQueryArgs) => Promise<ContextSlice>;

export async function modelViewAt(
  client: Client,
  workflowId: string,
  step: number,
  ask?: ContextAsker,
  /** The runs' events from fetchRuns, when the caller has them already (hermes export reads them once). */
  fetched?: HistoryEvent[][],
): Promise<ModelView> {
  const query: ContextAsker = ask ?? ((runId, args) => client.workflow.getHandle(workflowId, runId).query(contextQuery, args));
  const runs = fetched ?? (await fetchRuns(client, workflowId));
  const rows = stepRows(runs);
  const models = rows.filter((r) => r.kind === 'model');
  const index = models.findIndex((r) => r.step === step);
  if (index < 0) {
    throw new Error(
      `model step ${step} not found: ${workflowId} has ${models.length} model step(s) (--step takes the model step number, ` +
        'the "model step N" of the lines of run and status, and the step column of inspect)',
    );
  }
  const input = models[index]!.input as ModelCallInput;
  const { version, count, digest } = input.context;
  // Answered with the current version (and no messages) when the step's version has been rewritten since and the
  // run no longer has it; a run keeps the versions it rewrote itself (a closed one answers by replaying).
  const latest = await query(undefined, { version, from: 0, to: count });
  let slice = latest;
  const run = models[index]!.run;
  if (extendDigest('', slice.messages) !== digest && run < runs.length) {
    // The run's id is in the start event of the run after it.
    const runId = runs[run]![0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (runId) slice = await query(runId, { version, from: 0, to: count });
  }
  let messages = slice.messages;
  let rebuilt = false;
  if (extendDigest('', messages) !== digest) {
    // Fetch the current version and undo the prunes.
    const now = latest.version;
    const current = (await query(undefined, { version: now, from: 0, to: count })).messages;
    const tools = rows
      .filter((r) => r.kind === 'tool')
      .map((r) => ({ input: r.input as ToolCallInput, result: r.output as ToolCallResult | undefined }));
    const steps = models.map((r) => ({ context: (r.input as ModelCallInput).context, tools: (r.input as ModelCallInput).tools }));
    const again = rebuildContext(current, { tools, answers: clarifyAnswers(runs) }, steps, index);
    if (!again) {
      throw new Error(
        `step ${step} saw context version ${version}; the conversation has since rewritten its context (now version ` +
          `${now}) and the messages of version ${version} could not be rebuilt exactly from the history`,
      );
    }
    messages = again;
    rebuilt = true;
  }
  return {
    step,
    name: models[index]!.name,
    profile: input.profile ?? 'default',
    contextVersion: version,
    rebuilt,
    ...(slice.archived && !rebuilt ? { archived: true } : {}),
    // The client's tools of a `hermes serve` turn were offered beside the agent's.
    tools: [...toolDefinitions(input.tools), ...clientDefinitions(input)],
    messages,
    ...(models[index]!.reasoning ? { reasoning: models[index]!.reasoning } : {}),
  };
}

function decode(p: Payload): unknown {
  try {
    return defaultPayloadConverter.fromPayload(p);
  } catch {
    return undefined;
  }
}

function size(p: Payload | null | undefined): number {
  return p?.data?.length ?? 0;
}

function millis(e: HistoryEvent): number {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
}

function time(e: HistoryEvent): string {
  return new Date(millis(e)).toISOString();
}
