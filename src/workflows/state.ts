// The state of one conversation run: what continue-as-new carries (restored from the previous run, or fresh)
// and the live control state of this run. Every part of the loop reads and changes it through this class;
// it imports nothing of the loop itself (only pure helpers), so imports flow one way into it.
import {
  CancellationScope,
  CancelledFailure,
  isCancellation,
  setCurrentDetails,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  ChildView,
  ConversationInput,
  Delegation,
  ConversationResult,
  ConversationState,
  InterruptArgs,
  Limits,
  PendingApproval,
  PendingQuestion,
  RunStatus,
  StepRecord,
  TodoItem,
  TurnResult,
  Usage,
} from '../shared/contract';
import { extendDigest } from '../shared/digest';
import { HermesIterations, HermesModel, HermesStatus, HermesWaitingFor } from '../shared/search-attributes';
import type { ChatMessage, ChildProgress, ContextSlice, ExternalToolSpec, RepeatState, ToolList } from '../shared/wire';
import type { BudgetInput } from './budget';
import { newCompressionState, PRUNE_KEEP_TAIL, pruneToolOutputs, type CompressionState } from './context-ops';
import { STOPPED, type Stopped, type TurnOutcome } from './outcomes';
import { addUsage, subUsage, ZERO_USAGE } from './usage';
import { detailsText } from './view';

const MAX_STEPS_KEPT = 20;
const OUTCOMES_KEPT = 3;
const PROGRESS_EVERY_MS = 5_000;

/** A conversation's input once checked: limits complete, tools resolved. */
export interface RunConfig {
  input: ConversationInput & { limits: Limits; delegation?: Required<Delegation> };
  tools: string[];
  /** The worker's catalog tools this conversation recorded at its start (src/workflows/tool-list.ts). */
  toolList?: ToolList;
}

type CarriedKey =
  | 'messages'
  | 'contextVersion'
  | 'iteration'
  | 'usage'
  | 'modelCalls'
  | 'toolCalls'
  | 'steps'
  | 'repeat'
  | 'runs'
  | 'emptyStreak'
  | 'todo'
  | 'approvedPatterns'
  | 'warned'
  | 'startedAtMs'
  | 'turn'
  | 'turnStartIteration'
  | 'inbox'
  | 'turnResults';

/**
 * What continue-as-new carries to the next run (the workflow's second argument), JSON-plain. The optional
 * ones are optional because runs recorded before they existed did not carry them.
 */
export type CarriedState = Pick<Conversation, CarriedKey> &
  Partial<
    Pick<Conversation, 'invalidStreak' | 'redactions' | 'turnInProgress' | 'turnStartMessage' | 'ended' | 'compression'> & {
      profile: string;
      fallbackTurn: number;
      toolList: ToolList;
    }
  >;

export class Conversation {
  readonly input: RunConfig['input'];
  readonly limits: Limits;
  tools: string[];
  toolList: ToolList | undefined;

  // Carried across continue-as-new (see carry()).
  messages: ChatMessage[];
  /** Bumped by every rewrite of earlier messages, so workers drop contexts they cached. */
  contextVersion: number;
  iteration: number;
  usage: Usage;
  modelCalls: number;
  toolCalls: number;
  steps: StepRecord[];
  runs: number;
  emptyStreak: number;
  /** Tool calls in a row that named no offered tool or did not validate. */
  invalidStreak: number;
  /** Secrets the redactor replaced in this conversation's tool outputs and model replies. */
  redactions: number;
  repeat: RepeatState;
  profile: string | undefined;
  /** The turn in which `profile` became a fallback (model-step.ts); the next turn goes back to the primary. */
  fallbackTurn: number | undefined;
  todo: TodoItem[];
  approvedPatterns: string[];
  warned: string[];
  startedAtMs: number;
  turn: number;
  turnStartIteration: number;
  /** Index of the first message of the current turn (bounds the "work so far" of an interrupted turn). */
  turnStartMessage: number;
  inbox: string[];
  turnResults: TurnResult[];
  ended: boolean;
  /** A turn is under way: running now, or carried over from the previous run and still to be resumed. */
  turnInProgress: boolean;
  /** Context compression's bookkeeping (compress.ts). */
  compression: CompressionState;

  // Live control state of this run (continue-as-new only happens when nothing of it is pending).
  status: RunStatus = 'running';
  outcome: { reason?: string; error?: string } = {};
  pendingInterrupt: InterruptArgs | undefined;
  cancelRequested = false;
  timeUp = false;
  pendingQuestion: PendingQuestion | null = null;
  questionAnswer: string | undefined;
  pendingApprovals: PendingApproval[] = [];
  approvalDecisions = new Map<string, { decision: 'approve' | 'deny'; remember: boolean }>();
  waitingFor: ConversationState['waitingFor'] = null;
  /** The latest outcomes traced into the history (trace.ts), newest last: the Web UI's details list them. */
  recentOutcomes: string[] = [];
  /** The call the loop waits for, for the details (its attempts are on the Web UI's pending-activity card). */
  inFlight: string | undefined;
  /** The call the latest stop cut short, until the stop's trace names it. */
  lastCut: string | undefined;
  /** Sub-agents of the current (or latest) delegate_task call, for the state query. */
  children: ChildView[] = [];
  /** What each sub-agent of this run has reported so far; `settled` once its result is counted. */
  private readonly childTotals = new Map<string, { modelCalls: number; seq: number; usage: Usage; settled: boolean }>();
  /** Reports this conversation (as a sub-agent) sent to its parent in this run. */
  reportsSent = 0;
  /** Approvals waiting in each running sub-agent's subtree, as it last reported them (child-approvals.ts). */
  childApprovals = new Map<string, { runs: number; seq: number; approvals: PendingApproval[] }>();
  /** Approval reports this conversation (as a sub-agent) sent to its parent in this run. */
  approvalReportsSent = 0;
  readonly modelCallsAtRunStart: number;
  readonly historyBytesAtRunStart: number;
  private publishedAtMs = 0;
  private scope: CancellationScope | undefined;
  private digested = { version: -1, count: 0, value: '' };
  /**
   * Contexts of other versions this run served or replaced (compressions, prunes, the summarising call's), kept
   * so the `context` query answers `hermes inspect` for them exactly. Not carried: a later run's inspect asks the
   * run that had them (a closed run answers queries by replaying).
   */
  private readonly archive = new Map<number, ChatMessage[]>();

  constructor({ input, tools, toolList }: RunConfig, carried?: CarriedState) {
    this.input = input;
    this.limits = input.limits;
    this.tools = tools;
    this.toolList = carried?.toolList ?? toolList;
    const c = carried;
    const firstPrompt = input.prompt?.trim() ? [{ role: 'user' as const, content: input.prompt }] : [];
    // The system prompt is built once the start checks pass (prompt-step.ts).
    this.messages = c?.messages ?? [{ role: 'system', content: '' }, ...firstPrompt];
    this.contextVersion = c?.contextVersion ?? 0;
    this.iteration = c?.iteration ?? 0;
    this.usage = c?.usage ?? ZERO_USAGE;
    this.modelCalls = c?.modelCalls ?? 0;
    this.toolCalls = c?.toolCalls ?? 0;
    this.steps = c?.steps ?? [];
    this.runs = (c?.runs ?? 0) + 1;
    this.emptyStreak = c?.emptyStreak ?? 0;
    this.invalidStreak = c?.invalidStreak ?? 0;
    this.redactions = c?.redactions ?? 0;
    this.repeat = c?.repeat ?? { recent: [], warned: false };
    this.profile = c?.profile ?? input.model;
    this.fallbackTurn = c?.fallbackTurn;
    this.todo = c?.todo ?? [];
    this.approvedPatterns = c?.approvedPatterns ?? [];
    this.warned = c?.warned ?? [];
    this.startedAtMs = c?.startedAtMs ?? Date.now();
    this.turn = c?.turn ?? (firstPrompt.length ? 1 : 0);
    this.turnStartIteration = c?.turnStartIteration ?? 0;
    this.turnStartMessage = c?.turnStartMessage ?? 0;
    this.inbox = c?.inbox ?? [];
    this.turnResults = c?.turnResults ?? [];
    this.ended = c?.ended ?? false;
    this.compression = c?.compression ?? newCompressionState();
    // A fresh chat with a prompt starts with turn 1; a continued run resumes the turn it was in.
    this.turnInProgress = c ? Boolean(c.turnInProgress) : firstPrompt.length > 0;
    this.modelCallsAtRunStart = this.modelCalls;
    this.historyBytesAtRunStart = workflowInfo().historySize;
    this.publishStatus();
  }

  /** A fresh run's catalog tools, fetched after the start (tool-list.ts): before the system prompt, which names them. */
  useCatalog(tools: string[], list: ToolList): void {
    this.tools = tools;
    this.toolList = list;
  }

  /** A catalog tool (module, HTTP, MCP) this conversation recorded, by name. */
  catalogTool(name: string): ExternalToolSpec | undefined {
    return this.toolList?.tools.find((t) => t.name === name);
  }

  /** The state handed to the next run by continue-as-new. */
  carry(): CarriedState {
    const { messages, contextVersion, iteration, usage, modelCalls, toolCalls, steps, repeat, runs, emptyStreak, profile } = this;
    const { todo, approvedPatterns, warned, startedAtMs, turn, turnStartIteration, inbox, turnResults, turnStartMessage, ended } = this;
    const { invalidStreak, redactions, compression } = this;
    return {
      ...{ messages, contextVersion, iteration, usage, modelCalls, toolCalls, steps, repeat, runs, emptyStreak, invalidStreak, redactions },
      // Only once there is something to carry: runs that never learned a window carry what they did before.
      ...(compression.promptTokens || compression.count ? { compression } : {}),
      ...{ todo, approvedPatterns, warned, startedAtMs, turn, turnStartIteration, inbox, turnResults, turnStartMessage, ended },
      ...(profile !== undefined ? { profile } : {}),
      ...(this.fallbackTurn !== undefined ? { fallbackTurn: this.fallbackTurn } : {}),
      ...(this.toolList ? { toolList: this.toolList } : {}),
      turnInProgress: this.turnInProgress,
    };
  }

  /** Chat: per-turn state starts over with each user message. */
  beginTurn(text: string): void {
    this.turnStartMessage = this.messages.length;
    this.messages.push({ role: 'user', content: text });
    this.turn++;
    this.turnStartIteration = this.iteration;
    this.warned = this.warned.filter((w) => w !== 'iterations');
    this.repeat = { recent: [], warned: false };
    this.emptyStreak = 0;
    this.invalidStreak = 0;
    // A call a time-budget stop cut in an earlier turn is not what a later interrupt cuts.
    this.lastCut = undefined;
  }

  /**
   * Runs `fn` (a stretch of steps) in a fresh cancellation scope, so an interrupt, the wall-clock budget or a
   * workflow cancel can cut the step in flight short (activities get cancellation; the model's HTTP request is
   * aborted). A cut step ends the stretch with STOPPED; the caller applies the cause and starts a new stretch.
   * One scope per stretch, not per step: see docs/design-notes.md, "Control".
   */
  async stoppable<T>(fn: () => Promise<T>): Promise<T | Stopped> {
    const scope = new CancellationScope();
    // Born cancelled: the workflow itself is being cancelled (its root scope is).
    if (scope.consideredCancelled) throw new CancelledFailure('conversation cancelled');
    this.scope = scope;
    try {
      return await scope.run(fn);
    } catch (err) {
      if (isCancellation(err) && this.stopRequested()) return STOPPED;
      throw err;
    } finally {
      this.scope = undefined;
    }
  }

  /** The stretch's scope was cancelled: no activity can start in it, so the stretch must end. */
  stretchCut(): boolean {
    return Boolean(this.scope?.consideredCancelled);
  }

  stopRequested(): boolean {
    return Boolean(this.pendingInterrupt) || this.timeUp || this.cancelRequested;
  }

  /** Why the step in flight is being stopped, worded for the tool result the model reads. */
  stopCause(): string {
    if (this.cancelRequested) return 'because the conversation was cancelled';
    if (this.pendingInterrupt) return 'by interrupt';
    return 'because the time budget ran out';
  }

  /** Cuts the step in flight short (see stoppable); between steps it ends the stretch. */
  cancelStep(): void {
    this.scope?.cancel();
  }

  /** The wall-clock budget is a durable timer: it survives worker restarts and continue-as-new. */
  startClock(): void {
    const max = this.limits.maxDurationSec * 1000;
    if (max <= 0) return;
    const left = this.startedAtMs + max - Date.now();
    const fire = () => {
      this.timeUp = true;
      this.cancelStep();
    };
    if (left <= 0) return fire();
    sleep(left).then(fire, () => undefined);
  }

  budgetInput(): BudgetInput {
    return {
      limits: this.limits,
      usage: this.usage,
      iterations: this.iteration - this.turnStartIteration,
      elapsedSec: this.timeUp ? this.limits.maxDurationSec : (Date.now() - this.startedAtMs) / 1000,
    };
  }

  finish(o: TurnOutcome): ConversationResult {
    const { status, answer, reason, error } = o;
    this.outcome = { ...(reason ? { reason } : {}), ...(error ? { error } : {}) };
    this.setStatus(status);
    const { usage, modelCalls, toolCalls, runs } = this;
    return { status, answer, ...this.outcome, usage, iterations: this.iteration, modelCalls, toolCalls, runs };
  }

  setStatus(status: RunStatus, waitingFor: ConversationState['waitingFor'] = null): void {
    const changed = status !== this.status || waitingFor !== this.waitingFor;
    this.status = status;
    this.waitingFor = waitingFor;
    if (changed) this.publishStatus();
    this.details();
  }

  /**
   * Replaces old tool outputs (outside the recent tail) with one-line stubs. Any rewrite of earlier messages
   * must bump the context version, so workers drop what they cached; keeping both here keeps them together.
   */
  pruneOldToolOutputs(why: string): boolean {
    const next = this.messages.slice();
    if (pruneToolOutputs(next, PRUNE_KEEP_TAIL) === 0) return false;
    this.rewriteContext(next);
    this.note('context', why);
    return true;
  }

  /**
   * Replaces the context with `next` under a new version (one more, plus `skip` versions another context used);
   * the replaced one stays answerable to the `context` query for `hermes inspect`.
   */
  rewriteContext(next: ChatMessage[], skip = 0): void {
    this.archive.set(this.contextVersion, this.messages);
    this.messages = next;
    this.contextVersion += 1 + skip;
  }

  /** Serves `messages` as context version `version` (the summarising call's own context, compress.ts). */
  serveContext(version: number, messages: ChatMessage[]): void {
    this.archive.set(version, messages);
  }

  /** Fingerprint of the whole context, extended incrementally (recomputed after a rewrite or a new run). */
  digest(): string {
    if (this.digested.version !== this.contextVersion || this.digested.count > this.messages.length) {
      this.digested = { version: this.contextVersion, count: 0, value: '' };
    }
    const d = this.digested;
    d.value = extendDigest(d.value, this.messages.slice(d.count));
    d.count = this.messages.length;
    return d.value;
  }

  contextSlice(version: number, from: number, to: number): ContextSlice {
    if (version === this.contextVersion) return { version, messages: this.messages.slice(from, to) };
    const kept = this.archive.get(version);
    if (kept) return { version, messages: kept.slice(from, to), archived: true };
    return { version: this.contextVersion, messages: [] };
  }

  record(step: Omit<StepRecord, 'step' | 'modelStep'>): void {
    const last = this.steps[this.steps.length - 1];
    // modelStep numbers as the history's summaries and `hermes inspect --step` do: the model calls so far.
    this.steps.push({ step: last ? last.step + 1 : 1, ...(this.modelCalls ? { modelStep: this.modelCalls } : {}), ...step });
    if (this.steps.length > MAX_STEPS_KEPT) this.steps.splice(0, this.steps.length - MAX_STEPS_KEPT);
    this.details();
  }

  noteOutcome(text: string): void {
    this.recentOutcomes.push(text);
    if (this.recentOutcomes.length > OUTCOMES_KEPT) this.recentOutcomes.shift();
    this.details();
  }

  /** Names the call in flight in the details until `done` settles (the model step, the tool and its arguments). */
  async calling<T>(what: string, done: Promise<T>): Promise<T> {
    this.inFlight = what;
    this.details();
    try {
      return await done;
    } catch (err) {
      // An interrupt's trace names the call it cut short (turn.ts).
      if (isCancellation(err) && this.stopRequested()) this.lastCut = what;
      throw err;
    } finally {
      if (this.inFlight === what) this.inFlight = undefined;
    }
  }

  note(name: string, summary: string): void {
    this.record({ kind: 'note', name, summary, ok: true });
  }

  /** The model's latest text in this turn (earlier turns' answers are not this turn's work). */
  lastAssistantText(): string {
    for (let i = this.messages.length - 1; i >= this.turnStartMessage; i--) {
      const m = this.messages[i]!;
      if (m.role === 'assistant' && m.content) return m.content;
    }
    return '';
  }

  /** How deep this conversation is among sub-agents: 0 for one a person or a schedule started. */
  get depth(): number {
    return this.input.parent?.depth ?? 0;
  }

  /** A sub-agent is about to start: its reports count from now on. */
  expectChild(workflowId: string): void {
    this.childTotals.set(workflowId, { modelCalls: 0, seq: -1, usage: ZERO_USAGE, settled: false });
  }

  /**
   * A sub-agent's totals so far (its progress signal, or its result with `settle`): what is new is added to
   * this conversation's usage, so budgets see children's spending as it happens. Reports of children this
   * run did not start, of settled ones, or older than one already counted change nothing.
   */
  childReport(p: ChildProgress, settle = false): void {
    const t = this.childTotals.get(p.workflowId);
    const seq = p.seq ?? 0;
    if (!t || t.settled || p.modelCalls < t.modelCalls || (p.modelCalls === t.modelCalls && seq <= t.seq && !settle)) return;
    const delta = subUsage(p.usage, t.usage);
    if (delta.totalTokens > 0 || delta.costUsd > 0) this.usage = addUsage(this.usage, delta);
    if (p.usage.totalTokens >= t.usage.totalTokens) t.usage = p.usage;
    t.modelCalls = p.modelCalls;
    t.seq = seq;
    t.settled = settle;
    const view = this.children.find((v) => v.workflowId === p.workflowId);
    if (view) Object.assign(view, { iteration: p.iteration, totalTokens: p.usage.totalTokens, status: p.status });
  }

  /** A sub-agent this run started whose result is not in yet. */
  childRunning(workflowId: string): boolean {
    const t = this.childTotals.get(workflowId);
    return Boolean(t && !t.settled);
  }

  /** A sub-agent ended without a result (cancelled, failed to start): what it reported stays counted, nothing more. */
  closeChild(workflowId: string, status: ChildView['status']): void {
    const t = this.childTotals.get(workflowId);
    if (t) t.settled = true;
    const view = this.children.find((v) => v.workflowId === workflowId);
    if (view) view.status = status;
  }

  /** HermesStatus / HermesWaitingFor make conversations filterable in the Web UI and `temporal workflow list`. */
  private publishStatus(): void {
    if (this.input.searchAttributes === false) return;
    this.publishedAtMs = Date.now();
    upsertSearchAttributes([
      { key: HermesStatus, value: this.status },
      { key: HermesWaitingFor, value: this.waitingFor },
      { key: HermesModel, value: this.profile ?? 'default' },
      { key: HermesIterations, value: this.iteration },
    ]);
  }

  /**
   * After a model step: the iteration count (and the profile, which a fallback may have changed), at most every
   * PROGRESS_EVERY_MS of workflow time between status changes (which publish it too). Every upsert is a history
   * event and a visibility write on the server: once per step it cost ~0.3 KB of history and ~8 % of the loop's
   * speed (bench/RESULTS.md).
   */
  publishProgress(): void {
    if (this.input.searchAttributes === false || Date.now() - this.publishedAtMs < PROGRESS_EVERY_MS) return;
    this.publishedAtMs = Date.now();
    upsertSearchAttributes([
      { key: HermesModel, value: this.profile ?? 'default' },
      { key: HermesIterations, value: this.iteration },
    ]);
  }

  /** Workflow cancellation: the search attribute says so before the run ends as cancelled. */
  cancelled(): void {
    this.status = 'cancelled';
    this.waitingFor = null;
    this.publishStatus();
    this.details();
  }

  /** Live summary shown on the workflow page of the Temporal Web UI. */
  private details(): void {
    setCurrentDetails(detailsText(this));
  }
}
