// The agent loop as a workflow: the model decides one step, the runtime executes it, the result goes back to
// the model, until it answers. Deterministic code only: all I/O happens in activities. `Conversation` owns the
// state; the loop of one turn is in turn.ts, its model calls in model-step.ts.
import { CancellationScope, CancelledFailure, isCancellation, setCurrentDetails, sleep, workflowInfo } from '@temporalio/workflow';
import { DEFAULT_LIMITS } from '../shared/defaults';
import { extendDigest } from '../shared/digest';
import { PRUNE_KEEP_TAIL, pruneToolOutputs } from './context-ops';
import type {
  CarriedState,
  ChatMessage,
  ConversationInput,
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
} from '../shared/types';
import { resolveTools } from '../tools/registry';
import type { BudgetInput } from './budget';
import { runChat } from './chat';
import { publishStatus, registerHandlers } from './controls';
import { restoreState, type RunState } from './state';
import { runTurn } from './turn';
import { detailsText } from './view';

const MAX_STEPS_KEPT = 20;

export interface TurnOutcome {
  status: RunStatus;
  answer: string;
  reason?: string;
  error?: string;
}

/** Marks a stretch of steps cut short by an interrupt, the wall-clock budget or workflow cancellation. */
export const STOPPED = Symbol('stopped');

export async function conversationWorkflow(input: ConversationInput): Promise<ConversationResult> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...input.limits };
  const { tools, unknown } = resolveTools(input.tools);
  // Nobody can answer a question in a scheduled run.
  const offered = input.scheduled ? tools.filter((t) => t !== 'clarify') : tools;
  const convo = new Conversation(input, limits, offered);
  registerHandlers(convo);
  if (unknown.length) return convo.finish({ status: 'failed', answer: '', reason: 'BadInput', error: `unknown tools or toolsets: ${unknown.join(', ')}` });
  convo.startClock();
  if (input.mode === 'chat') return runChat(convo);
  return convo.finish(await runTurn(convo));
}

export class Conversation implements RunState {
  status: RunStatus = 'running';
  // Set by restoreState (state.ts): carried over from the previous run, or fresh.
  declare messages: ChatMessage[];
  declare contextVersion: number;
  declare iteration: number;
  declare usage: Usage;
  declare modelCalls: number;
  declare toolCalls: number;
  declare steps: StepRecord[];
  declare runs: number;
  declare emptyStreak: number;
  declare repeat: CarriedState['repeat'];
  declare profile: string | undefined;
  declare todo: TodoItem[];
  declare approvedPatterns: string[];
  declare warned: string[];
  declare startedAtMs: number;
  declare turn: number;
  declare turnStartIteration: number;
  declare inbox: string[];
  declare turnResults: TurnResult[];
  /** Index of the first message of the current turn (bounds the "work so far" of an interrupted turn). */
  declare turnStartMessage: number;
  declare ended: boolean;
  /** A turn carried over from the previous run must be resumed. */
  declare turnPending: boolean;
  // Live control state (not carried: continue-as-new only happens when nothing is pending).
  pendingInterrupt: InterruptArgs | undefined;
  cancelRequested = false;
  timeUp = false;
  turnRunning = false;
  pendingQuestion: PendingQuestion | null = null;
  questionAnswer: string | undefined;
  pendingApprovals: PendingApproval[] = [];
  approvalDecisions = new Map<string, { decision: 'approve' | 'deny'; remember: boolean }>();
  waitingFor: ConversationState['waitingFor'] = null;
  readonly modelCallsAtRunStart: number;
  readonly historyBytesAtRunStart: number;
  private scope: CancellationScope | undefined;
  private digested = { version: -1, count: 0, value: '' };

  constructor(
    readonly input: ConversationInput,
    readonly limits: Limits,
    readonly tools: string[],
  ) {
    Object.assign(this, restoreState(input, tools));
    this.modelCallsAtRunStart = this.modelCalls;
    this.historyBytesAtRunStart = workflowInfo().historySize;
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
  }

  /**
   * Runs `fn` (a stretch of steps) in a fresh cancellation scope, so an interrupt, the wall-clock budget or a
   * workflow cancel can cut the step in flight short (activities get cancellation; the model's HTTP request is
   * aborted). A cut step ends the stretch with STOPPED; the caller applies the cause and starts a new stretch.
   * One scope per stretch instead of one per step: every scope and every async layer costs promises, and the
   * SDK captures a stack trace for each promise created in workflow code — that was a third of a workflow
   * task's CPU time.
   */
  async stoppable<T>(fn: () => Promise<T>): Promise<T | typeof STOPPED> {
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
    this.setStatus(o.status);
    const { status, answer, reason, error } = o;
    const { usage, modelCalls, toolCalls, runs } = this;
    return { status, answer, ...(reason ? { reason } : {}), ...(error ? { error } : {}), usage, iterations: this.iteration, modelCalls, toolCalls, runs };
  }

  setStatus(status: RunStatus, waitingFor: ConversationState['waitingFor'] = null): void {
    const changed = status !== this.status || waitingFor !== this.waitingFor;
    this.status = status;
    this.waitingFor = waitingFor;
    if (changed) publishStatus(this);
    this.details();
  }

  /**
   * Replaces old tool outputs (outside the recent tail) with one-line stubs. Any rewrite of earlier messages
   * must bump the context version, so workers drop what they cached; keeping both here keeps them together.
   */
  pruneOldToolOutputs(why: string): boolean {
    if (pruneToolOutputs(this.messages, PRUNE_KEEP_TAIL) === 0) return false;
    this.contextVersion++;
    this.note('context', why);
    return true;
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

  contextSlice(version: number, from: number, to: number) {
    if (version !== this.contextVersion) return { version: this.contextVersion, messages: [] };
    return { version, messages: this.messages.slice(from, to) };
  }

  record(step: Omit<StepRecord, 'step'>): void {
    const last = this.steps[this.steps.length - 1];
    this.steps.push({ step: last ? last.step + 1 : 1, ...step });
    if (this.steps.length > MAX_STEPS_KEPT) this.steps.splice(0, this.steps.length - MAX_STEPS_KEPT);
    this.details();
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

  /** Live summary shown on the workflow page of the Temporal Web UI. */
  private details(): void {
    setCurrentDetails(detailsText(this));
  }
}
