// The typed client API used by code and by the CLI:
//   const hermes = await Hermes.connect();
//   const run = await hermes.start({ prompt: 'Fix the failing test' });
//   console.log((await run.result()).answer);
import {
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { decodeStoredValue } from './storage/decode';
import { temporal } from '@temporalio/proto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dataConverter } from './codec';
import { explainUnreadable, isPayloadKeyMismatch } from './codec/explain';
import { startMarked } from './codec/marker';
import { connectClient, isServerUnreachable, resolveTemporal, sayUnreachable, type TemporalTarget } from './startup/connection';
import { DEFAULT_LIMITS, TASK_QUEUE } from './shared/defaults';
import { readConfig } from './config/load';
import { redactUserText, redactUserTexts, type InputRedaction } from './security/user-input';
import {
  answerUpdate,
  approveUpdate,
  endSignal,
  eventsQuery,
  interruptSignal,
  sendUpdate,
  stateQuery,
  type NOTHING_PENDING,
} from './shared/messages';
import { refusedWhenClosed } from './late-updates';
import { isPause } from './shared/client-tools';
import { conversationEvents, type EventsOptions } from './events/client';
import type { ConversationEvent } from './shared/events';
import {
  issuesText,
  limitsSchema,
  startOptionsSchema,
  type ApproveArgs,
  type ConversationInput,
  type ConversationResult,
  type ConversationState,
  type InterruptArgs,
  type Limits,
  type StartOptions,
  type StateQueryArgs,
  type TurnResult,
} from './shared/contract';
import { cancelledTotals } from './inspect/cancelled-totals';
import { completedModelSteps, fetchRunHistories } from './inspect/step-context';
import { callNames, inFlightCalls, type InFlightCall } from './inspect/in-flight';
import { newConversationId } from './shared/ids';
import { resultOfFailure } from './shared/failed-result';
import { MemoryClient, type MemoryLimits } from './memory/client';
import { HermesSchedules } from './schedules/client';
import { webhookProblem } from './schedules/webhook-policy';
import { resolveTools } from './tools/registry';
import type { conversationWorkflow } from './workflows';
import type { HermesWorkerOptions } from './worker';
import type { ExportOptions, ExportRecord } from './export';
import { clientTracingInterceptors, flushTracing } from './observe/tracing';

export type { ConversationInput, ConversationResult, ConversationState, StartOptions } from './shared/contract';
export type { InFlightCall } from './inspect/in-flight';
export type { ConversationEvent, StepEventRecord, EventsPage } from './shared/events';
export type { EventsOptions } from './events/client';
export type { ExportOptions, ExportRecord, ShareGptRecord, TrajectoryRecord } from './export';
export { PayloadKeyMismatchError, isPayloadKeyMismatch } from './codec/explain';
/** The data converter of a client you create yourself (`new Client({ dataConverter: hermesDataConverter() })`): the codec and the payload store from the environment. */
export { dataConverter as hermesDataConverter } from './codec';
export type { TaskChanges, TaskDefinition, TaskInfo, TaskRun } from './schedules/client';
export { defineTool, ToolResultError, type ToolDefinition, type ExternalToolContext } from './tools/define';
export { resolveInWorkspace } from './tools/workspace';
export { MemoryClient, MemoryError, type MemoryView, type MemoryWrite, type MemoryWriteResult } from './memory/client';

const startOptions = startOptionsSchema();

/**
 * The largest prompt `start` accepts, in bytes of UTF-8. The server refuses a payload over 2 MiB (its blob size
 * limit), and the prompt travels in the workflow's input next to the rest of the run config.
 */
export const MAX_PROMPT_BYTES = 1_500_000;
/** The whole encoded input stays under this (a prompt of escapes grows when JSON-encoded). */
const MAX_INPUT_BYTES = 1_900_000;

/** The contract's own bound on a prompt, in characters (startOptionsSchema). */
export const MAX_PROMPT_CHARS = 1_000_000;

/** Why a prompt cannot be sent, or undefined when it can: the limit named, and what to do instead. */
export function promptTooLarge(prompt: string): string | undefined {
  const bytes = Buffer.byteLength(prompt, 'utf8');
  const what =
    bytes > MAX_PROMPT_BYTES
      ? `${formatBytes(bytes)} of UTF-8, over the limit of ${formatBytes(MAX_PROMPT_BYTES)} (Temporal's payload limit is 2 MiB)`
      : prompt.length > MAX_PROMPT_CHARS
        ? `${prompt.length} characters, over the limit of ${MAX_PROMPT_CHARS} characters`
        : undefined;
  if (!what) return undefined;
  return `the prompt is ${what}: put the text in a file in the workspace and ask for it to be read instead (e.g. "read notes.txt and …")`;
}

function formatBytes(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(2)} MB (${n} bytes)` : `${n} bytes`;
}

/** The workflow's status on the server: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, CONTINUED_AS_NEW. */
export type TemporalStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'TIMED_OUT' | 'CONTINUED_AS_NEW' | 'UNKNOWN';

export { isServerUnreachable } from './startup/connection';

export interface ResultOptions {
  /**
   * Hears the first error of each outage (the server unreachable): default, one line on stderr. The wait goes on
   * with backoff until the server answers again or `maxOutageMs` have passed.
   */
  onUnreachable?: (err: Error) => void;
  /** How long one outage may last before result() gives up and throws. Default 10 minutes. */
  maxOutageMs?: number;
}
const LIMIT_KEYS = Object.keys(limitsSchema().shape) as Array<keyof Limits>;

export interface HermesConnectOptions {
  /** An existing client; otherwise one is made from TEMPORAL_* env (or the embedded dev server). */
  client?: Client;
  taskQueue?: string;
  /** Also run a worker in this process (true, or its options); stopped by close(). */
  worker?: boolean | InProcessWorkerOptions;
}

export type InProcessWorkerOptions = Omit<HermesWorkerOptions, 'connection' | 'namespace' | 'taskQueue'> & {
  /** Worker Deployment Versioning as `hermes worker` does it (default HERMES_VERSIONING, else `auto`; docs/versioning.md). */
  versioning?: 'auto' | 'manual' | 'off';
};

export class Hermes {
  private constructor(
    readonly client: Client,
    readonly taskQueue: string,
    private readonly owned?: { connection: Connection; target: TemporalTarget },
  ) {}

  static async connect(opts: HermesConnectOptions = {}): Promise<Hermes> {
    const taskQueue = opts.taskQueue ?? process.env.HERMES_TASK_QUEUE ?? TASK_QUEUE;
    if (opts.client) {
      if (opts.worker) throw new Error('worker: true needs Hermes to make the connection (do not pass client)');
      return new Hermes(opts.client, taskQueue);
    }
    // With HERMES_PAYLOAD_KEY set, payloads are encrypted (src/codec); otherwise the SDK's default converter.
    // Read first: a bad key is an error before anything is started.
    const converter = dataConverter();
    const target = await resolveTemporal();
    const connection = await connectClient(target);
    // With OTEL_EXPORTER_OTLP_ENDPOINT set, starts and signals are traced and the workflow continues the trace.
    const tracing = clientTracingInterceptors();
    const client = new Client({
      connection,
      namespace: target.namespace,
      ...(converter ? { dataConverter: converter } : {}),
      ...(tracing.length ? { interceptors: { workflow: tracing } } : {}),
    });
    const hermes = new Hermes(client, taskQueue, { connection, target });
    if (opts.worker) await hermes.startWorker(opts.worker === true ? {} : opts.worker);
    return hermes;
  }

  private worker?: { stop(): Promise<void> };

  /** Runs a worker in this process (what `hermes run` does with the embedded server). */
  private async startWorker(options: InProcessWorkerOptions): Promise<void> {
    // Loaded here so code that only starts and steers conversations never loads the worker.
    const { closeWorkerConnection, connectWorker } = await import('./startup/connection');
    const { startWorkerFleet } = await import('./versioning/fleet');
    const target = this.owned!.target;
    const connection = await connectWorker(target);
    // Versioned like `hermes worker` (docs/versioning.md); `versioning: 'off'` for a plain unversioned worker.
    const fleet = await startWorkerFleet({ ...options, connection, client: this.client, namespace: target.namespace, taskQueue: this.taskQueue });
    this.worker = {
      async stop() {
        fleet.shutdown();
        await fleet.done;
        await closeWorkerConnection(connection);
      },
    };
  }

  /**
   * Starts a conversation; bad options are rejected here, before anything reaches the server, with the
   * messages the workflow itself would give (the same contract checks its input). A relative workspace is
   * taken from the current directory.
   */
  async start(options: StartOptions): Promise<ConversationHandle> {
    const withPath = options.workspace ? { ...options, workspace: path.resolve(options.workspace) } : options;
    // Before the contract's checks: a prompt too large is told so with the limit and what to do instead.
    const tooLarge = typeof options.prompt === 'string' ? promptTooLarge(options.prompt) : undefined;
    if (tooLarge) throw new Error(tooLarge);
    // What the user typed becomes the workflow's input (the history, the Web UI's summary): secrets are replaced first.
    const typed = redactUserTexts({ prompt: withPath.prompt, system: withPath.system, summary: withPath.summary }, this.client);
    const parsed = startOptions.safeParse({ ...withPath, ...definedOnly(typed.texts) });
    if (!parsed.success) throw new Error(`invalid start options: ${issuesText(parsed.error)}`);
    const o = parsed.data;
    // Names the bundle does not know may be the worker's custom, HTTP or MCP tools: the workflow checks them
    // against the worker's list and ends as BadInput when nobody has them.
    const { unknown } = resolveTools(o.tools);
    const badName = unknown.find((n) => !/^[a-zA-Z0-9_-]{1,64}$/.test(n));
    if (badName) throw new Error(`invalid start options: tools: unknown tools or toolsets: ${badName}`);
    // As for a task's webhook: an address this process's webhook policy refuses is told now, not after the run.
    const hookProblem = o.webhook ? webhookProblem(o.webhook) : undefined;
    if (hookProblem) throw new Error(`invalid start options: ${hookProblem}`);
    // Every limit is written into the input: a later change of a default must not change the decisions of
    // conversations already running (their histories would no longer replay). The config file's `limits` are
    // this process's defaults.
    const limits: Limits = { ...DEFAULT_LIMITS, ...readConfig()?.config.limits };
    for (const k of LIMIT_KEYS) if (o[k] !== undefined) limits[k] = o[k];
    const input: ConversationInput = {
      prompt: o.prompt ?? '',
      ...(o.mode ? { mode: o.mode } : {}),
      ...(o.busyPolicy ? { busyPolicy: o.busyPolicy } : {}),
      ...(o.approvalMode ? { approvalMode: o.approvalMode } : {}),
      ...(o.scheduled ? { scheduled: o.scheduled } : {}),
      ...(o.searchAttributes === false ? { searchAttributes: false } : {}),
      ...(o.sandbox ? { sandbox: o.sandbox } : {}),
      ...(o.network !== undefined ? { network: o.network } : {}),
      ...(o.model ? { model: o.model } : {}),
      ...(o.fallbackModel ? { fallbackModel: o.fallbackModel } : {}),
      ...(o.workspace ? { workspace: o.workspace } : {}),
      ...(o.tools ? { tools: o.tools } : {}),
      ...(o.system ? { system: o.system } : {}),
      ...(o.delegation ? { delegation: o.delegation } : {}),
      ...(o.memoryScope ? { memoryScope: o.memoryScope } : {}),
      ...(o.skillsStore ? { skillsStore: o.skillsStore } : {}),
      ...(o.webhook ? { webhook: o.webhook } : {}),
      ...(o.sessionId ? { sessionId: o.sessionId } : {}),
      limits,
    };
    const inputBytes = Buffer.byteLength(JSON.stringify(input), 'utf8');
    if (inputBytes > MAX_INPUT_BYTES) {
      throw new Error(
        `the conversation's input encodes to ${formatBytes(inputBytes)}, over the limit of ${formatBytes(MAX_INPUT_BYTES)} ` +
          "(Temporal's payload limit is 2 MiB): put long text in a file in the workspace and ask for it to be read instead",
      );
    }
    // An encrypted run says so in clear (the HermesEncryption search attribute, a notice as its static details).
    const start = (workflowId: string) =>
      startMarked(this.client, o.searchAttributes !== false, (marker) =>
        this.client.workflow.start<typeof conversationWorkflow>('conversationWorkflow', {
          workflowId,
          taskQueue: this.taskQueue,
          args: [input],
          staticSummary: o.summary ?? staticSummaryOf(o.mode, o.prompt),
          ...marker,
        }),
      );
    const prompt = o.prompt ?? '';
    const handle = await start(o.id ?? newConversationId(prompt || (o.summary ?? ''), o.mode)).catch((err: unknown) => {
      // A default id that clashes (one chance in ~2·10^9 per slug) gets another suffix; a caller's id does not.
      if (o.id || !(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      return start(newConversationId(prompt || (o.summary ?? ''), o.mode));
    });
    return new ConversationHandle(handle, typed.redaction);
  }

  /**
   * Whether any worker polls this client's task queue for workflow tasks (DescribeTaskQueue): without one, a
   * conversation is stored but nothing runs it.
   */
  async workerPolling(): Promise<boolean> {
    return hasWorkflowPollers(this.client.workflowService, this.client.options.namespace, this.taskQueue);
  }

  /** The Temporal server address (host:port) this client talks to, when Hermes made the connection. */
  get address(): string | undefined {
    return this.owned?.target.connectionOptions.address;
  }

  /** A handle to an existing conversation by workflow id. */
  get(id: string): ConversationHandle {
    return new ConversationHandle(this.client.workflow.getHandle<typeof conversationWorkflow>(id));
  }

  /** Scheduled tasks: Temporal Schedules whose firings are conversations (src/schedules/client.ts). */
  get schedules(): HermesSchedules {
    return (this.scheduleClient ??= new HermesSchedules(this.client, this.taskQueue));
  }
  private scheduleClient?: HermesSchedules;

  /**
   * The durable memory of a scope (default `default`, the scope of conversations on the default profile):
   * `read()`, `write({ action, store, text?, match? })`, `clear(store?)`. `limits` apply if this call creates it.
   */
  memory(scope = 'default', opts: { limits?: Partial<MemoryLimits> } = {}): MemoryClient {
    return MemoryClient.checked(this.client, scope, { taskQueue: this.taskQueue, ...opts });
  }

  /**
   * Trajectories: one record per finished conversation (the ids given, or those `query`/`since` select on this
   * task queue), rebuilt from its history as `hermes inspect` rebuilds a step — the tools offered, every message
   * the model saw and sent, usage, status, timings, sub-agents (src/export/). `format: 'sharegpt'` gives the
   * upstream agent's trajectory shape.
   */
  async *export(options: ExportOptions = {}): AsyncGenerator<ExportRecord> {
    // Loaded here: the export reads histories and may replay them (the worker package), which starting a
    // conversation never needs.
    const { exportConversations } = await import('./export/index');
    yield* exportConversations(this, options);
  }

  /** Web UI address when running against the embedded dev server. */
  get uiUrl(): string | undefined {
    return this.owned?.target.embedded?.uiUrl;
  }

  get target(): TemporalTarget | undefined {
    return this.owned?.target;
  }

  /** Stops the in-process worker, closes the connection, and stops an embedded dev server this started. */
  async close(): Promise<void> {
    await this.worker?.stop();
    await flushTracing();
    await this.owned?.connection.close();
    await this.owned?.target.embedded?.stop();
  }
}

export class ConversationHandle {
  constructor(
    readonly workflow: WorkflowHandle<typeof conversationWorkflow>,
    /** Set by `start` when secrets in the prompt, system text or summary were replaced before sending (its `notice` says so). */
    readonly redaction?: InputRedaction,
  ) {}

  get id(): string {
    return this.workflow.workflowId;
  }

  /**
   * Waits for the end of the conversation, across continue-as-new runs. Never throws for a failed run. A run
   * cancelled through Temporal has no result of its own: its totals (usage, iterations, calls) are read from its
   * state or history (src/inspect/cancelled-totals.ts); `runs: 0` says they could not be. Rides
   * out a server outage (the workflow survives one): while the server cannot be reached it retries with backoff,
   * saying so once per outage, for up to `maxOutageMs` (default 10 minutes).
   */
  async result(opts: ResultOptions = {}): Promise<ConversationResult> {
    const maxOutageMs = opts.maxOutageMs ?? 10 * 60_000;
    const say = opts.onUnreachable ?? sayUnreachable;
    let outageSince: number | undefined;
    let backoffMs = 500;
    for (;;) {
      try {
        return await this.resultOnce();
      } catch (err) {
        if (!isServerUnreachable(err)) throw await explainUnreadable(err, this.workflow, 'result');
        const now = Date.now();
        if (outageSince === undefined) {
          outageSince = now;
          backoffMs = 500;
          say(err as Error);
        } else if (now - outageSince > maxOutageMs) {
          throw new Error(`the Temporal server has been unreachable for ${Math.round((now - outageSince) / 1000)} s: ${(err as Error).message}`, {
            cause: err,
          });
        }
        await sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 10_000);
        // One quick call tells whether the outage is over; a long-poll that fails later is a new outage.
        if (
          await this.workflow.describe().then(
            () => true,
            () => false,
          )
        )
          outageSince = undefined;
      }
    }
  }

  private async resultOnce(): Promise<ConversationResult> {
    try {
      return await this.workflow.result();
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      // A failed conversation ends as a FAILED workflow with its result in the failure's details.
      const carried = resultOfFailure(err.cause);
      if (carried) return carried;
      const cause = err.cause;
      const cancelled = cause?.name === 'CancelledFailure';
      // A cancelled workflow returned nothing: its totals come from its state or history (runs 0: unknown).
      const totals = cancelled ? await cancelledTotals(this.workflow) : undefined;
      return {
        status: cancelled ? 'cancelled' : 'failed',
        answer: '',
        reason: cancelled
          ? 'Cancelled'
          : cause?.name === 'TerminatedFailure'
            ? 'Terminated'
            : cause?.name === 'TimeoutFailure'
              ? 'TimedOut'
              : (cause?.name ?? 'WorkflowFailed'),
        error: cause?.message ?? err.message,
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
        iterations: 0,
        modelCalls: 0,
        toolCalls: 0,
        runs: 0,
        ...totals,
      };
    }
  }

  /** The workflow's status as the server has it (describe): closed states are known even with no worker. */
  async temporalStatus(): Promise<TemporalStatus> {
    const d = await this.workflow.describe();
    return (d.status.name as TemporalStatus | undefined) ?? 'UNKNOWN';
  }

  /**
   * Whether a worker polls the conversation's task queue (DescribeTaskQueue on the queue its workflow runs on).
   */
  async workerPolling(): Promise<boolean> {
    const d = await this.workflow.describe();
    const c = this.workflow.client;
    return hasWorkflowPollers(c.workflowService, c.options.namespace, d.taskQueue);
  }

  /**
   * The model-step numbers of the model calls that completed, oldest first (see completedModelSteps in
   * src/inspect/step-context.ts): the numbers `inspect --step` takes, for the model step records of the state query.
   */
  async modelSteps(): Promise<number[]> {
    const runs = await fetchRunHistories({ workflow: this.workflow.client }, this.id);
    return completedModelSteps(runs.map((h) => h.events ?? []));
  }

  /**
   * The model and tool calls in flight, from the server (DescribeWorkflowExecution's pending activities): for
   * each, its attempt, seconds running, how the previous attempt failed and when the next one starts. One describe
   * call; the first time a call is seen, the history is read once more to name it (its model-step number, the
   * tool). Works with no worker running, and costs the conversation nothing (nothing is recorded).
   */
  async inFlight(): Promise<InFlightCall[]> {
    const d = await this.workflow.describe();
    const calls = inFlightCalls(d.raw.pendingActivities);
    const key = (c: InFlightCall) => `${d.runId}/${c.activityId}`;
    const unnamed = calls.filter((c) => !this.callNames.has(key(c)));
    if (unnamed.length) {
      const converter = this.workflow.client.options.loadedDataConverter;
      const decode = (p: Payload) => decodeStoredValue(converter, p);
      const names = await fetchRunHistories({ workflow: this.workflow.client }, this.id)
        .then((runs) =>
          callNames(
            runs.map((h) => h.events ?? []),
            d.runId,
            unnamed.map((c) => c.activityId),
            decode,
          ),
        )
        .catch(() => undefined);
      // Remembered also when unnamed, so a call the history cannot name costs one read, not one per look.
      if (names) for (const c of unnamed) this.callNames.set(key(c), names.get(c.activityId) ?? {});
    }
    return calls.map((c) => ({ ...c, ...this.callNames.get(key(c)) }));
  }
  private readonly callNames = new Map<string, { modelStep?: number; tool?: string }>();

  /**
   * The conversation's live events (src/shared/events.ts): its steps as they start and finish, the model's reply
   * word by word while the endpoint streams, questions it waits on, its answers and status — from `from` (an
   * offset of a step event) on, across continue-as-new, until it closes. Costs the conversation no history.
   */
  events(opts: EventsOptions = {}): AsyncGenerator<ConversationEvent> {
    return conversationEvents(this.workflow.client, this.id, opts);
  }

  /** The offset the next step event will have: `events({ from })` with it sees exactly what happens from now on. */
  async eventsOffset(): Promise<number> {
    return (await this.workflow.query(eventsQuery, { from: Number.MAX_SAFE_INTEGER })).next;
  }

  /** Live state (the `state` query): status, iteration, budgets left, usage, todo, pending question/approvals. */
  state(args?: StateQueryArgs): Promise<ConversationState> {
    const q = args ? this.workflow.query(stateQuery, args) : this.workflow.query(stateQuery);
    return q.catch(async (err: unknown) => {
      throw await explainUnreadable(err, this.workflow, 'state');
    });
  }

  /**
   * Stops the step in flight. With `message`, the loop goes on with it as the next user message (secrets in it
   * replaced first: resolves with what was replaced, if anything).
   */
  async interrupt(args: InterruptArgs = {}): Promise<InputRedaction | undefined> {
    const typed = args.message === undefined ? undefined : redactUserText(args.message, this.workflow.client);
    await this.workflow.signal(interruptSignal, typed ? { ...args, message: typed.text } : args);
    return typed?.redaction;
  }

  /** Answers the pending clarify question (secrets in it replaced first); rejected when none is pending. */
  async answer(text: string): Promise<{ callId: string; redaction?: InputRedaction }> {
    const typed = redactUserText(text, this.workflow.client);
    const r = await this.update('answer', () => this.workflow.executeUpdate(answerUpdate, { args: [{ text: typed.text }] }));
    return typed.redaction ? { ...r, redaction: typed.redaction } : r;
  }

  /**
   * Approves or denies a pending tool call; rejected when that call is not pending. A sub-agent's call that this
   * conversation lists (delegation.childApprovals) is passed on to it; `workflowId` (the conversation the call
   * belongs to, `pendingApprovals[i].child.workflowId`) is needed only when two pending calls share an id.
   */
  approve(
    callId: string,
    decision: ApproveArgs['decision'] = 'approve',
    remember = false,
    workflowId?: string,
  ): Promise<{ callId: string; decision: string; workflowId?: string }> {
    const args = { callId, decision, remember, ...(workflowId ? { workflowId } : {}) };
    return this.update('approve', () => this.workflow.executeUpdate(approveUpdate, { args: [args] }));
  }

  /**
   * Chat mode: sends a message and waits for that turn's answer. Secrets in the message are replaced before it is
   * sent (not in an encrypted run); `redaction` says what was replaced.
   */
  async send(text: string): Promise<TurnResult & { redaction?: InputRedaction }> {
    const typed = redactUserText(text, this.workflow.client);
    const r = await this.update('send', () => this.workflow.executeUpdate(sendUpdate, { args: [{ text: typed.text }] }));
    // A turn hands back client tool calls only to a send that offered client tools (`hermes serve`); this one offers none.
    if (isPause(r)) throw new Error(`turn ${r.turn} asks for client tool calls this send did not offer`);
    return typed.redaction ? { ...r, redaction: typed.redaction } : r;
  }

  /** An update's outcome; a rejection (or the conversation closing under it, src/late-updates.ts) as its reason. */
  private update<T>(kind: keyof typeof NOTHING_PENDING, p: () => Promise<T>): Promise<T> {
    return unwrapUpdate(refusedWhenClosed(this.workflow, kind, p));
  }

  /** Chat mode: ends the conversation. */
  end(reason?: string): Promise<void> {
    return this.workflow.signal(endSignal, reason ? { reason } : {});
  }

  /** Temporal cancellation: stops the step in flight, then the workflow ends as cancelled. */
  cancel(): Promise<void> {
    return this.workflow.cancel().then(() => undefined);
  }

  /**
   * Yields the state whenever it changes (new step, status, pending question/approval), until the
   * conversation is closed. Polls the `state` query; queries cost no history.
   */
  async *progress(intervalMs = 250): AsyncGenerator<ConversationState> {
    let last = '';
    for (;;) {
      let s: ConversationState | undefined;
      try {
        s = await this.state();
      } catch (err) {
        if (isPayloadKeyMismatch(err)) throw err; // unreadable now means unreadable later: the key is wrong
        const d = await this.workflow.describe().catch(() => undefined);
        if (d && d.status.name !== 'RUNNING') return;
        if (!d) throw err;
      }
      if (s) {
        const key = JSON.stringify([s.status, s.waitingFor, s.lastStep?.step, s.pendingQuestion, s.pendingApprovals, s.todo, s.turn]);
        if (key !== last) {
          last = key;
          yield s;
        }
        if (!['running', 'waiting', 'idle'].includes(s.status)) return;
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}

/** A rejected update (validator) surfaces as its reason, e.g. "no question is pending: nothing to answer". */
async function unwrapUpdate<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause) throw new Error(err.cause.message, { cause: err });
    throw err;
  }
}

async function hasWorkflowPollers(service: Client['workflowService'], namespace: string, taskQueue: string): Promise<boolean> {
  const r = await service.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (r.pollers?.length ?? 0) > 0;
}

/** The Web UI's summary of a conversation: the task, or a chat's first message (`hermes chat` starts with it). */
export function staticSummaryOf(mode: string | undefined, prompt: string | undefined): string {
  const first = (prompt ?? '').trim().split('\n')[0]!.slice(0, 200);
  if (mode === 'chat') return first ? `chat: ${first}` : 'chat (no message yet)';
  return first || 'task';
}

/** The entries of `o` whose value is not undefined (so a spread does not add keys the caller left out). */
function definedOnly<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
