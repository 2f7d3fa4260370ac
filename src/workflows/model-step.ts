// The model calls of a turn: a step with tools, classified into what the loop does next, and the tool-less
// grace call that ends a forced stop with a summary. Failures the loop can recover from (context overflow,
// an unavailable model with a fallback profile) become another try; the rest end the turn.
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { RunStatus } from '../shared/contract';
import type { ModelAttemptFailure, ModelCallResult } from '../shared/wire';
import { acts, localActs, modelOptions } from './activities';
import type { ModelOutcome, TurnOutcome } from './outcomes';
import type { Conversation } from './state';
import { reportToParent } from './delegate';
import { describeFailure, FALLBACK_TRIGGERS } from './failures';
import { EMPTY_NUDGE, unparsedCallCorrection } from './prompts';
import { MAX_INVALID_STREAK } from './limits';
import { addUsage } from './usage';
import { compressOnOverflow, learnFromCall, windowOf } from './compress';
import { contextChars } from './context-ops';
import { traceOutcome } from './trace';

/** One model call with tools; classifies what the model wants next. */
export async function modelStep(c: Conversation): Promise<ModelOutcome> {
  // A fallback lasts for the turn it was needed in: each turn tries the primary first.
  if (c.fallbackTurn !== undefined && c.fallbackTurn !== c.turn) {
    c.fallbackTurn = undefined;
    c.profile = c.input.model;
    c.note('model', `new turn: back to profile ${c.profile ?? 'default'}`);
  }
  c.iteration++;
  let r: ModelCallResult;
  try {
    r = await callModel(c, c.tools);
  } catch (err) {
    if (isCancellation(err)) throw err;
    const f = describeFailure(err);
    if (f.type === 'ContextOverflow' && (await compressOnOverflow(c))) {
      c.iteration--;
      return { kind: 'again' };
    }
    // A step whose model stays unavailable continues on the next profile of the primary's fallback chain (the
    // worker's config, asked with a local activity only then), for the rest of the turn.
    if (FALLBACK_TRIGGERS.includes(f.type)) {
      const next = await nextInChain(c);
      if (!next) return { kind: 'fail', reason: f.type, error: f.message };
      c.note('model', `${f.type} on profile ${c.profile ?? 'default'}: continuing on fallback profile ${next} for this turn`);
      c.profile = next;
      c.fallbackTurn = c.turn;
      c.iteration--;
      return { kind: 'again' };
    }
    return { kind: 'fail', reason: f.type, error: f.message };
  }
  const calls = r.message.tool_calls ?? [];
  if (calls.length === 0 && !r.message.content?.trim()) {
    c.emptyStreak++;
    c.record({ kind: 'model', name: 'empty', summary: `empty response (${c.emptyStreak})`, ok: false });
    if (c.emptyStreak === 1) c.messages.push({ role: 'user', content: EMPTY_NUDGE });
    if (c.emptyStreak >= 3) {
      return { kind: 'fail', reason: 'EmptyResponse', error: 'the model returned an empty response 3 times in a row' };
    }
    return { kind: 'again' };
  }
  c.emptyStreak = 0;
  c.messages.push({ role: 'assistant', content: r.message.content, ...(calls.length ? { tool_calls: calls } : {}) });
  if (r.unparsedToolCall) {
    // A tool call the model wrote as text and we could not read: never its answer. It gets a correction,
    // and counts like an invalid call (so a model that cannot produce one is stopped, not looped).
    c.invalidStreak++;
    c.messages.push({ role: 'user', content: unparsedCallCorrection(r.unparsedToolCall) });
    c.note('model', `tool call written as text could not be read (${c.invalidStreak} in a row)`);
    if (c.invalidStreak >= MAX_INVALID_STREAK) {
      return { kind: 'invalid', detail: `${c.invalidStreak} tool calls in a row could not run, the last one unreadable` };
    }
    return { kind: 'again' };
  }
  if (calls.length === 0) return { kind: 'answer', text: r.message.content ?? '' };
  return { kind: 'tools', calls };
}

/** The profile after the current one in the primary's chain (its `fallbacks`, then the run's fallbackModel). */
async function nextInChain(c: Conversation): Promise<string | undefined> {
  let chain: string[];
  try {
    ({ chain } = await localActs.modelFallbacks({
      ...(c.input.model ? { primary: c.input.model } : {}),
      ...(c.input.fallbackModel ? { runFallback: c.input.fallbackModel } : {}),
    }));
  } catch (err) {
    if (isCancellation(err)) throw err;
    c.note('model', `no fallback: the worker could not name the fallback profiles (${describeFailure(err).message})`);
    return undefined;
  }
  const at = chain.indexOf(c.profile ?? chain[0]!);
  return at >= 0 ? chain[at + 1] : undefined;
}

/** The final tool-less call that turns a forced stop into a useful summary. */
export async function grace(c: Conversation, status: RunStatus, request: string): Promise<TurnOutcome> {
  c.messages.push({ role: 'user', content: request });
  try {
    // Not stoppable: the summary is what the user gets for an interrupted budget.
    const r = await CancellationScope.nonCancellable(() => callModel(c, [], 'final summary, no tools'));
    const text = r.message.content ?? '';
    c.messages.push({ role: 'assistant', content: text });
    return { status, answer: text };
  } catch (err) {
    const f = describeFailure(err);
    return { status, answer: c.lastAssistantText(), reason: f.type, error: `grace call failed: ${f.message}` };
  }
}

async function callModel(c: Conversation, tools: string[], purpose?: string): Promise<ModelCallResult> {
  c.modelCalls++;
  const chars = contextChars(c.messages);
  // Numbered as `hermes inspect --step` and the state query's modelStep number it: every model call counts.
  const step = `step ${c.modelCalls}${purpose ? `: ${purpose}` : ''}`;
  const call = acts.callModel.executeWithOptions(modelOptions(c.limits, step), [
    {
      context: { version: c.contextVersion, count: c.messages.length, digest: c.digest() },
      profile: c.profile,
      tools,
      step: c.modelCalls,
      ...(windowOf(c) === undefined ? { window: true as const } : {}),
      // Catalog tools' definitions come from the recorded list (by digest), not from this input: history stays small.
      ...(c.toolList && tools.length ? { toolList: c.toolList.digest } : {}),
    },
  ]);
  const r = await c.calling(`model ${step} (profile ${c.profile ?? 'default'})`, call);
  if (r.attempt) await traceOutcome(c, retriedCall(`model ${step}`, r.attempt, r.failures));
  c.usage = addUsage(c.usage, r.usage);
  learnFromCall(c, r, chars);
  // A sub-agent that goes on reports its totals now; a reply without tool calls ends it, and its result reports them.
  if (r.message.tool_calls?.length) reportToParent(c);
  if (c.limits.maxCostUsd > 0 && r.usage.totalTokens > 0 && r.usage.costUsd === 0 && !c.warned.includes('unpriced')) {
    c.warned.push('unpriced');
    c.note('budget', `maxCostUsd cannot be enforced: model profile ${c.profile ?? 'default'} has no prices`);
  }
  const names = r.message.tool_calls?.map((t) => t.function.name) ?? [];
  const how = r.toolMode === 'text' ? ' (text mode)' : r.fromText ? ' written as text' : '';
  const what = names.length
    ? `${names.length} tool call(s)${how}: ${names.join(', ')}`
    : `${r.unparsedToolCall ? 'unreadable tool call' : 'answer'}${r.toolMode === 'text' ? ' (text mode)' : ''}`;
  c.record({ kind: 'model', name: r.model, summary: what, ok: true, ...redacted(c, r.redactions) });
  c.publishProgress();
  return r;
}

/** Counts what the activity's redactor replaced; the step record carries it when there was any. */
export function redacted(c: Conversation, n: number | undefined): { redactions?: number } {
  if (!n) return {};
  c.redactions += n;
  return { redactions: n };
}

/** The trace of a call that succeeded on a retry: how many attempts, and why the earlier ones failed. */
function retriedCall(what: string, attempt: number, failures: ModelAttemptFailure[] = []): string {
  // The endpoint's address is on the activity's row already: keep what it answered.
  const said = (m: string) => m.replace(/^model endpoint \S+ /, '').slice(0, 60);
  const why = failures.length ? `: ${failures.map((f) => `${f.type} (${said(f.message)})`).join(', ')}` : '';
  return `${what} succeeded on attempt ${attempt} after ${attempt - 1} failed${why}`;
}
