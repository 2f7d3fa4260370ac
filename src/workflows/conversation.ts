// The agent loop as a workflow: the model decides one step, the runtime executes it, the result goes back to
// the model, until it answers. Deterministic code only: all I/O happens in activities.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { DEFAULT_LIMITS } from '../shared/defaults';
import { contextQuery, stateQuery } from '../shared/messages';
import type {
  CarriedState,
  ChatMessage,
  ConversationInput,
  ConversationResult,
  ConversationState,
  Limits,
  ModelCallResult,
  RunStatus,
  StepRecord,
  ToolCall,
  Usage,
} from '../shared/types';
import { resolveTools } from '../tools/registry';
import { EMPTY_NUDGE, graceRequest, systemPrompt } from './prompts';
import { describeFailure, FALLBACK_TRIGGERS } from './failures';
import { pruneToolOutputs } from './context-ops';
import { acts, modelCallOptions } from './activities';
import { runToolCalls } from './run-tools';

const MAX_STEPS_KEPT = 20;

type ModelOutcome =
  | { kind: 'answer'; text: string }
  | { kind: 'tools'; calls: ToolCall[] }
  | { kind: 'again' }
  | { kind: 'fail'; reason: string; error: string };

export async function conversationWorkflow(input: ConversationInput): Promise<ConversationResult> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...input.limits };
  const { tools, unknown } = resolveTools(input.tools);
  const convo = new Conversation(input, limits, tools);
  setHandler(stateQuery, () => convo.snapshot());
  setHandler(contextQuery, ({ version, from, to }) => convo.contextSlice(version, from, to));
  if (unknown.length) {
    return convo.finish('failed', '', 'BadInput', `unknown tools or toolsets: ${unknown.join(', ')}`);
  }
  return convo.run();
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

  constructor(
    readonly input: ConversationInput,
    readonly limits: Limits,
    readonly tools: string[],
  ) {
    const c = input.carried;
    this.messages = c?.messages ?? [
      { role: 'system', content: systemPrompt({ workspace: input.workspace, tools, extra: input.system }) },
      { role: 'user', content: input.prompt },
    ];
    this.contextVersion = c?.contextVersion ?? 0;
    this.iteration = c?.iteration ?? 0;
    this.usage = c?.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 };
    this.modelCalls = c?.modelCalls ?? 0;
    this.toolCalls = c?.toolCalls ?? 0;
    this.steps = c?.steps ?? [];
    this.runs = (c?.runs ?? 0) + 1;
    this.emptyStreak = c?.emptyStreak ?? 0;
    this.repeat = c?.repeat ?? { recent: [], warned: false };
    this.profile = c?.profile ?? input.model;
  }

  async run(): Promise<ConversationResult> {
    for (;;) {
      if (this.iteration >= this.limits.maxIterations) {
        return this.graceAndFinish('budget_exhausted', graceRequest('budget', `${this.iteration} iterations`));
      }
      await this.maybeContinueAsNew();
      const outcome = await this.modelStep();
      switch (outcome.kind) {
        case 'answer':
          return this.finish('completed', outcome.text);
        case 'again':
          continue;
        case 'fail':
          return this.finish('failed', this.lastAssistantText(), outcome.reason, outcome.error);
        case 'tools': {
          const verdict = await runToolCalls(this, outcome.calls);
          if (verdict.stop) return this.graceAndFinish('stopped_repeating', graceRequest('repeating', verdict.stop));
          break;
        }
        default: {
          const never: never = outcome;
          throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
        }
      }
    }
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
        this.bumpContext();
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
    this.messages.push({
      role: 'assistant',
      content: r.message.content,
      ...(calls.length ? { tool_calls: calls } : {}),
    });
    if (calls.length === 0) return { kind: 'answer', text: r.message.content ?? '' };
    return { kind: 'tools', calls };
  }

  async callModel(tools: string[], summary: string): Promise<ModelCallResult> {
    this.modelCalls++;
    const options = {
      ...modelCallOptions,
      retry: { ...modelCallOptions.retry, maximumAttempts: this.limits.modelMaxAttempts },
      summary: `model ${summary}`,
    };
    const r = await acts.callModel.executeWithOptions(options, [
      {
        context: { version: this.contextVersion, count: this.messages.length },
        profile: this.profile,
        tools,
        step: this.modelCalls,
      },
    ]);
    this.addUsage(r.usage);
    const n = r.message.tool_calls?.length ?? 0;
    this.record({
      kind: 'model',
      name: r.model,
      summary: n ? `${n} tool call(s): ${r.message.tool_calls!.map((t) => t.function.name).join(', ')}` : 'answer',
      ok: true,
    });
    return r;
  }

  /** The final tool-less call that turns a forced stop into a useful summary. */
  private async graceAndFinish(status: RunStatus, request: string): Promise<ConversationResult> {
    this.messages.push({ role: 'user', content: request });
    try {
      const r = await this.callModel([], 'grace summary');
      const text = r.message.content ?? '';
      this.messages.push({ role: 'assistant', content: text });
      return this.finish(status, text);
    } catch (err) {
      if (isCancellation(err)) throw err;
      const f = describeFailure(err);
      return this.finish(status, this.lastAssistantText(), f.type, `grace call failed: ${f.message}`);
    }
  }

  private async maybeContinueAsNew(): Promise<void> {
    const info = workflowInfo();
    if (!info.continueAsNewSuggested && info.historyLength < this.limits.maxHistoryEvents) return;
    // Handlers (queries aside) must finish first, or their callers would see the run vanish under them.
    await condition(allHandlersFinished);
    await continueAsNew<typeof conversationWorkflow>({ ...this.input, carried: this.carry() });
  }

  carry(): CarriedState {
    return {
      messages: this.messages,
      contextVersion: this.contextVersion,
      iteration: this.iteration,
      usage: this.usage,
      modelCalls: this.modelCalls,
      toolCalls: this.toolCalls,
      steps: this.steps,
      repeat: this.repeat,
      runs: this.runs,
      emptyStreak: this.emptyStreak,
      profile: this.profile,
    };
  }

  finish(status: RunStatus, answer: string, reason?: string, error?: string): ConversationResult {
    this.status = status;
    this.details();
    return {
      status,
      answer,
      ...(reason ? { reason } : {}),
      ...(error ? { error } : {}),
      usage: this.usage,
      iterations: this.iteration,
      modelCalls: this.modelCalls,
      toolCalls: this.toolCalls,
      runs: this.runs,
    };
  }

  snapshot(): ConversationState {
    return {
      status: this.status,
      iteration: this.iteration,
      maxIterations: this.limits.maxIterations,
      iterationsLeft: Math.max(0, this.limits.maxIterations - this.iteration),
      usage: this.usage,
      modelCalls: this.modelCalls,
      toolCalls: this.toolCalls,
      messages: this.messages.length,
      contextVersion: this.contextVersion,
      runs: this.runs,
      lastStep: this.steps[this.steps.length - 1],
      recentSteps: this.steps.slice(-5),
    };
  }

  contextSlice(version: number, from: number, to: number) {
    if (version !== this.contextVersion) return { version: this.contextVersion, messages: [] };
    return { version, messages: this.messages.slice(from, to) };
  }

  record(step: Omit<StepRecord, 'step'>): void {
    this.steps.push({ step: this.steps.length ? this.steps[this.steps.length - 1]!.step + 1 : 1, ...step });
    if (this.steps.length > MAX_STEPS_KEPT) this.steps.splice(0, this.steps.length - MAX_STEPS_KEPT);
    this.details();
  }

  note(name: string, summary: string): void {
    this.record({ kind: 'note', name, summary, ok: true });
  }

  bumpContext(): void {
    this.contextVersion++;
  }

  private addUsage(u: Usage): void {
    this.usage = {
      promptTokens: this.usage.promptTokens + u.promptTokens,
      completionTokens: this.usage.completionTokens + u.completionTokens,
      totalTokens: this.usage.totalTokens + u.totalTokens,
      costUsd: this.usage.costUsd + u.costUsd,
    };
  }

  private lastAssistantText(): string {
    for (let i = this.messages.length - 1; i >= 0; i--) {
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
        `**${this.status}** · iteration ${this.iteration}/${this.limits.maxIterations}`,
        `tokens ${this.usage.totalTokens} · cost $${this.usage.costUsd.toFixed(4)} · tool calls ${this.toolCalls}`,
        last ? `last step: ${last.kind} ${last.name} — ${last.summary}` : '',
      ].join('\n\n'),
    );
  }
}
