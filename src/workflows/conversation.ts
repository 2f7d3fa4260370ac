// The agent loop as a workflow: the model decides one step, the runtime executes it, the result goes back to
// the model, until it answers. Deterministic code only: all I/O happens in activities.
import { CancellationScope, CancelledFailure, isCancellation, setCurrentDetails, sleep, workflowInfo } from '@temporalio/workflow';
import { DEFAULT_LIMITS } from '../shared/defaults';
import { extendDigest } from '../shared/digest';
import type {
  CarriedState,
  ChatMessage,
  ConversationInput,
  ConversationResult,
  ConversationState,
  InterruptArgs,
  Limits,
  ModelCallResult,
  PendingApproval,
  PendingQuestion,
  RunStatus,
  StepRecord,
  TodoItem,
  ToolCall,
  TurnResult,
  Usage,
} from '../shared/types';
import { resolveTools } from '../tools/registry';
import { acts, modelCallOptions } from './activities';
import { budgetViews, dueWarnings, exhausted, type BudgetInput } from './budget';
import { runChat } from './chat';
import { pruneToolOutputs } from './context-ops';
import { continueConversationAsNew, publishStatus, registerHandlers, shouldContinueAsNew } from './controls';
import { describeFailure, FALLBACK_TRIGGERS } from './failures';
import { EMPTY_NUDGE, graceRequest, interruptedAnswer, systemPrompt } from './prompts';
import { runToolCalls } from './run-tools';

const MAX_STEPS_KEPT = 20;
const ZERO: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 };

type ModelOutcome =
  | { kind: 'answer'; text: string }
  | { kind: 'tools'; calls: ToolCall[] }
  | { kind: 'again' }
  | { kind: 'fail'; reason: string; error: string };

export interface TurnOutcome {
  status: RunStatus;
  answer: string;
  reason?: string;
  error?: string;
}

/** Marks a step that was cut short by an interrupt, the wall-clock budget or workflow cancellation. */
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
  return convo.finish(await convo.runTurn());
}

export class Conversation {
  status: RunStatus = 'running';
  messages: ChatMessage[];
  contextVersion: number;
  iteration: number;
  usage: Usage;
  modelCalls: number;
  toolCalls: number;
  steps: StepRecord[];
  runs: number;
  emptyStreak: number;
  repeat: CarriedState['repeat'];
  profile: string | undefined;
  todo: TodoItem[];
  approvedPatterns: string[];
  warned: string[];
  startedAtMs: number;
  turn: number;
  turnStartIteration: number;
  inbox: string[];
  turnResults: TurnResult[];
  /** Index of the first message of the current turn (bounds the "work so far" of an interrupted turn). */
  turnStartMessage: number;
  /** A turn carried over from the previous run must be resumed. */
  turnPending: boolean;
  // Live control state (not carried: continue-as-new only happens when nothing is pending).
  pendingInterrupt: InterruptArgs | undefined;
  cancelRequested = false;
  timeUp = false;
  ended = false;
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
    const c = input.carried;
    const firstPrompt = input.prompt?.trim() ? [{ role: 'user' as const, content: input.prompt }] : [];
    this.messages = c?.messages ?? [
      { role: 'system', content: systemPrompt({ workspace: input.workspace, tools, extra: input.system }) },
      ...firstPrompt,
    ];
    this.contextVersion = c?.contextVersion ?? 0;
    this.iteration = c?.iteration ?? 0;
    this.usage = c?.usage ?? ZERO;
    this.modelCalls = c?.modelCalls ?? 0;
    this.toolCalls = c?.toolCalls ?? 0;
    this.steps = c?.steps ?? [];
    this.runs = (c?.runs ?? 0) + 1;
    this.emptyStreak = c?.emptyStreak ?? 0;
    this.repeat = c?.repeat ?? { recent: [], warned: false };
    this.profile = c?.profile ?? input.model;
    this.todo = c?.todo ?? [];
    this.approvedPatterns = c?.approvedPatterns ?? [];
    this.warned = c?.warned ?? [];
    this.startedAtMs = c?.startedAtMs ?? Date.now();
    this.turn = c?.turn ?? (firstPrompt.length ? 1 : 0);
    this.turnStartIteration = c?.turnStartIteration ?? 0;
    this.inbox = c?.inbox ?? [];
    this.turnResults = c?.turnResults ?? [];
    this.turnStartMessage = c?.turnStartMessage ?? 0;
    this.ended = c?.ended ?? false;
    // A fresh chat with a prompt starts with turn 1; a continued run resumes the turn it was in.
    this.turnPending = c ? Boolean(c.turnInProgress) : firstPrompt.length > 0;
    this.modelCallsAtRunStart = this.modelCalls;
    this.historyBytesAtRunStart = workflowInfo().historySize;
  }

  /** One turn: model and tool steps until the model answers or something stops it. */
  async runTurn(): Promise<TurnOutcome> {
    this.turnRunning = true;
    this.turnPending = false;
    this.setStatus('running');
    try {
      // A conversation-wide budget used up in an earlier turn: say so without spending more.
      const spent = exhausted(this.budgetInput());
      if (spent && this.iteration === this.turnStartIteration && !spent.startsWith('iterations')) {
        return { status: 'budget_exhausted', answer: `The conversation's budget is used up (${spent}).` };
      }
      for (;;) {
        if (this.cancelRequested) throw new CancelledFailure('conversation cancelled');
        if (this.pendingInterrupt) {
          const stop = this.takeInterrupt();
          if (stop) return stop;
        }
        const out = exhausted(this.budgetInput());
        if (out) return this.grace('budget_exhausted', graceRequest('budget', out));
        for (const w of dueWarnings(this.budgetInput(), this.warned)) {
          this.warned.push(w.kind);
          this.messages.push({ role: 'user', content: w.text });
          this.note('budget', `warned the model: ${w.kind} at 80%`);
        }
        if (shouldContinueAsNew(this)) await continueConversationAsNew(this);
        const outcome = await this.stoppable(() => this.modelStep());
        if (outcome === STOPPED) continue;
        switch (outcome.kind) {
          case 'answer':
            return { status: 'completed', answer: outcome.text };
          case 'again':
            continue;
          case 'fail':
            return { status: 'failed', answer: this.lastAssistantText(), reason: outcome.reason, error: outcome.error };
          case 'tools': {
            const verdict = await runToolCalls(this, outcome.calls);
            if (verdict.stop) return this.grace('stopped_repeating', graceRequest('repeating', verdict.stop));
            break;
          }
          default: {
            const never: never = outcome;
            throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
          }
        }
      }
    } finally {
      this.turnRunning = false;
      // An interrupt that arrived too late for this turn (e.g. during the grace call) must not hit the next
      // one; a redirect message it carried becomes the next chat message instead of being lost.
      const late = this.pendingInterrupt;
      this.pendingInterrupt = undefined;
      if (late?.message && this.input.mode === 'chat') this.inbox.unshift(late.message);
    }
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
   * Runs one step in its own cancellation scope, so an interrupt, the wall-clock budget or a workflow cancel
   * can cut it short (activities get cancellation; the model's HTTP request is aborted).
   */
  async stoppable<T>(fn: () => Promise<T>): Promise<T | typeof STOPPED> {
    const scope = new CancellationScope();
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

  stopRequested(): boolean {
    return Boolean(this.pendingInterrupt) || this.timeUp || this.cancelRequested;
  }

  /** Why the step in flight is being stopped, worded for the tool result the model reads. */
  stopCause(): string {
    if (this.cancelRequested) return 'because the conversation was cancelled';
    if (this.pendingInterrupt) return 'by interrupt';
    return 'because the time budget ran out';
  }

  /** Cuts the step in flight short (see stoppable). */
  cancelStep(): void {
    this.scope?.cancel();
  }

  /** Applies a pending interrupt: redirect (new user message, go on) or end the turn as interrupted. */
  private takeInterrupt(): TurnOutcome | undefined {
    const i = this.pendingInterrupt!;
    this.pendingInterrupt = undefined;
    this.note('interrupt', i.message ? `redirected: ${i.message.slice(0, 80)}` : `stopped${i.reason ? `: ${i.reason}` : ''}`);
    if (i.message) {
      this.messages.push({ role: 'user', content: i.message });
      return undefined;
    }
    return { status: 'interrupted', answer: interruptedAnswer(this.lastAssistantText(), i.reason), reason: i.reason };
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

  /** One model call with tools; classifies what the model wants next. */
  private async modelStep(): Promise<ModelOutcome> {
    this.iteration++;
    let r: ModelCallResult;
    try {
      r = await this.callModel(this.tools, `step ${this.iteration}`);
    } catch (err) {
      if (isCancellation(err)) throw err;
      const f = describeFailure(err);
      if (f.type === 'ContextOverflow' && pruneToolOutputs(this.messages, 6) > 0) {
        this.contextVersion++;
        this.note('context', 'context overflow: pruned old tool outputs and retried');
        this.iteration--;
        return { kind: 'again' };
      }
      if (FALLBACK_TRIGGERS.includes(f.type) && this.input.fallbackModel && this.profile !== this.input.fallbackModel) {
        this.profile = this.input.fallbackModel;
        this.note('model', `${f.type}: switched to fallback profile ${this.profile}`);
        this.iteration--;
        return { kind: 'again' };
      }
      return { kind: 'fail', reason: f.type, error: f.message };
    }
    const calls = r.message.tool_calls ?? [];
    if (calls.length === 0 && !r.message.content?.trim()) {
      this.emptyStreak++;
      this.record({ kind: 'model', name: 'empty', summary: `empty response (${this.emptyStreak})`, ok: false });
      if (this.emptyStreak === 1) this.messages.push({ role: 'user', content: EMPTY_NUDGE });
      if (this.emptyStreak >= 3) {
        return { kind: 'fail', reason: 'EmptyResponse', error: 'the model returned an empty response 3 times in a row' };
      }
      return { kind: 'again' };
    }
    this.emptyStreak = 0;
    this.messages.push({ role: 'assistant', content: r.message.content, ...(calls.length ? { tool_calls: calls } : {}) });
    if (calls.length === 0) return { kind: 'answer', text: r.message.content ?? '' };
    return { kind: 'tools', calls };
  }

  async callModel(tools: string[], summary: string): Promise<ModelCallResult> {
    this.modelCalls++;
    const options = {
      ...modelCallOptions,
      heartbeatTimeout: this.limits.modelHeartbeatSec * 1000,
      retry: { ...modelCallOptions.retry, maximumAttempts: this.limits.modelMaxAttempts },
      summary: `model ${summary}`,
    };
    const r = await acts.callModel.executeWithOptions(options, [
      { context: { version: this.contextVersion, count: this.messages.length, digest: this.digest() }, profile: this.profile, tools, step: this.modelCalls },
    ]);
    this.usage = addUsage(this.usage, r.usage);
    if (this.limits.maxCostUsd > 0 && r.usage.totalTokens > 0 && r.usage.costUsd === 0 && !this.warned.includes('unpriced')) {
      this.warned.push('unpriced');
      this.note('budget', `maxCostUsd cannot be enforced: model profile ${this.profile ?? 'default'} has no prices`);
    }
    const names = r.message.tool_calls?.map((t) => t.function.name) ?? [];
    this.record({ kind: 'model', name: r.model, summary: names.length ? `${names.length} tool call(s): ${names.join(', ')}` : 'answer', ok: true });
    return r;
  }

  /** The final tool-less call that turns a forced stop into a useful summary. */
  async grace(status: RunStatus, request: string): Promise<TurnOutcome> {
    this.messages.push({ role: 'user', content: request });
    try {
      // Not stoppable: the summary is what the user gets for an interrupted budget.
      const r = await CancellationScope.nonCancellable(() => this.callModel([], 'grace summary'));
      const text = r.message.content ?? '';
      this.messages.push({ role: 'assistant', content: text });
      return { status, answer: text };
    } catch (err) {
      const f = describeFailure(err);
      return { status, answer: this.lastAssistantText(), reason: f.type, error: `grace call failed: ${f.message}` };
    }
  }

  carry(): CarriedState {
    const { messages, contextVersion, iteration, usage, modelCalls, toolCalls, steps, repeat, runs, emptyStreak, profile } = this;
    const { todo, approvedPatterns, warned, startedAtMs, turn, turnStartIteration, inbox, turnResults, turnStartMessage, ended } = this;
    return {
      ...{ messages, contextVersion, iteration, usage, modelCalls, toolCalls, steps, repeat, runs, emptyStreak, profile },
      ...{ todo, approvedPatterns, warned, startedAtMs, turn, turnStartIteration, inbox, turnResults, turnStartMessage, ended },
      turnInProgress: this.turnRunning,
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

  snapshot(): ConversationState {
    return {
      status: this.status,
      iteration: this.iteration,
      maxIterations: this.limits.maxIterations,
      iterationsLeft: Math.max(0, this.limits.maxIterations - (this.iteration - this.turnStartIteration)),
      usage: this.usage,
      modelCalls: this.modelCalls,
      toolCalls: this.toolCalls,
      messages: this.messages.length,
      contextVersion: this.contextVersion,
      runs: this.runs,
      mode: this.input.mode ?? 'task',
      turn: this.turn,
      waitingFor: this.waitingFor,
      budgets: budgetViews(this.budgetInput()),
      todo: this.todo,
      pendingQuestion: this.pendingQuestion,
      pendingApprovals: this.pendingApprovals,
      lastStep: this.steps[this.steps.length - 1],
      recentSteps: this.steps.slice(-5),
    };
  }

  /** Fingerprint of the whole context, extended incrementally (recomputed after a rewrite or a new run). */
  private digest(): string {
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
    const last = this.steps[this.steps.length - 1];
    setCurrentDetails(
      [
        `**${this.status}**${this.waitingFor ? ` (waiting for ${this.waitingFor})` : ''} · iteration ${this.iteration} · run ${this.runs} of ${workflowInfo().workflowId}`,
        `tokens ${this.usage.totalTokens} · cost $${this.usage.costUsd.toFixed(4)} · tool calls ${this.toolCalls}`,
        last ? `last step: ${last.kind} ${last.name} — ${last.summary}` : '',
      ].join('\n\n'),
    );
  }
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}
