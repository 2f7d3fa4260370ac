// The model calls of a turn, as data for the turn (turn.ts): one step with tools, classified into what the model
// wants next, and the tool-less final summary that ends a forced stop. A failure the step can recover from (a
// context overflow, an unavailable model with a fallback profile) is recovered inside the step: the same step,
// one iteration, tried again; the rest end it as `fail`.
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import { MAX_TOOL_CALLS_PER_REPLY, type ModelCallResult } from '../../shared/wire';
import { localActivities } from '../engine/activity-options';
import { callModel } from './model-call';
import { compressOnOverflow } from './compress';
import type { Conversation } from '../state/conversation-state';
import { describeFailure, FALLBACK_TRIGGERS } from '../engine/failures';
import { echoedInstructions, madeUpResult } from '../rules/echo-check';
import { ANSWER_FORMAT_FAILURE, type AnswerFormat } from '../../shared/client-tools';
import {
  ANNOUNCED_ACTION_NUDGE,
  ANSWER_FORMAT_NUDGE_HEAD,
  answerFormatNudge,
  currentMessage,
  echoCorrection,
  madeUpResultCorrection,
  REPEATED_RESULT_NUDGE,
  unparsedCallCorrection,
  UNTOOLED_ANSWER_NUDGE,
} from '../../shared/texts';
import { announcesAction } from '../rules/announced';
import type { ModelReply } from './step-result';

/** One model step with the conversation's tools. */
export function modelStep(c: Conversation): Promise<ModelReply> {
  // A fallback lasts for the turn it was needed in: each turn tries the primary first.
  if (c.model.backToPrimary(c.meter.turn)) c.note('model', `new turn: back to profile ${c.model.profile ?? 'default'}`);
  c.meter.stepTaken();
  return attempt(c);
}

/**
 * One try of the step, classified in the `then` of the call (not an async loop awaiting it: each promise the
 * workflow makes costs a stack trace in the SDK's promise hook); a failure it can recover from tries again.
 */
function attempt(c: Conversation): Promise<ModelReply> {
  let call: Promise<ModelCallResult>;
  try {
    call = stepCall(c);
  } catch (err) {
    return recover(c, err);
  }
  return call.then(
    (r) => reply(c, r),
    (err: unknown) => recover(c, err),
  );
}

/** A failed call: the same step once more after compressing or on the next fallback profile, else the step fails. */
async function recover(c: Conversation, err: unknown): Promise<ModelReply> {
  if (isCancellation(err)) throw err;
  const f = describeFailure(err);
  if (f.type === 'ContextOverflow' && (await compressOnOverflow(c))) return attempt(c);
  // A model that stays unavailable: the next profile of the primary's fallback chain (the worker's config,
  // asked with a local activity only then), for the rest of the turn.
  if (FALLBACK_TRIGGERS.includes(f.type)) {
    const next = await nextInChain(c);
    if (next) {
      c.note('model', `${f.type} on profile ${c.model.profile ?? 'default'}: continuing on fallback profile ${next} for this turn`);
      c.model.fallBackTo(next, c.meter.turn);
      return attempt(c);
    }
  }
  return { kind: 'fail', reason: f.type, error: f.message };
}

/** What the model wants next, with what the checks of a reply need from the conversation. */
function reply(c: Conversation, r: ModelCallResult): ModelReply {
  const anyResultYet = c.transcript.messages.some((m) => m.role === 'tool');
  // A small model is asked once to check an answer it gave before any tool ran (it guesses counts and outputs).
  const recheck = c.toolView.core && !anyResultYet && !c.transcript.messages.some((m) => m.role === 'user' && m.content === UNTOOLED_ANSWER_NUDGE);
  // An announcement right after the nudge about one is the model's answer: asked once, not looped.
  const last = c.transcript.messages.at(-1);
  const announceCheck = r.toolMode !== 'constrained' && !(last?.role === 'user' && last.content === ANNOUNCED_ACTION_NUDGE);
  const format = c.clientTools.offer?.responseFormat;
  // An answer that lacks the client's format right after the nudge about it: the turn fails, it is not looped.
  const formatAsked = last?.role === 'user' && last.content.startsWith(ANSWER_FORMAT_NUDGE_HEAD);
  const task = c.input.prompt ? { task: currentMessage(c.input.prompt) } : {};
  return classify(r, { anyResultYet, recheck, announceCheck, ...task, ...(format ? { format: { format, asked: formatAsked } } : {}) });
}

/** What the checks of a reply without calls need besides it (echo-check.ts). */
interface ReplyContext {
  /** A tool result is in the context already (a reply before any may not quote one). */
  anyResultYet: boolean;
  /** A small model's answer before any tool ran, not asked for again yet. */
  recheck: boolean;
  /**
   * A reply that announces an action may be asked for once more: not in constrained mode (only the answer object
   * ends a turn there) and not right after that nudge.
   */
  announceCheck: boolean;
  /** The conversation's prompt: a reply that is a piece of it is no answer. */
  task?: string;
  /** The client's answer format (`hermes serve`), and whether the model was just asked once more for it. */
  format?: { format: AnswerFormat; asked: boolean };
}

function classify(r: ModelCallResult, { anyResultYet, recheck, announceCheck, task, format }: ReplyContext): ModelReply {
  const all = r.message.tool_calls ?? [];
  // The activity keeps at most this many; whatever gave more, more than 2,000 pending activities would fail every
  // workflow task of the conversation.
  const calls = all.length > MAX_TOOL_CALLS_PER_REPLY ? all.slice(0, MAX_TOOL_CALLS_PER_REPLY) : all;
  const dropped = (r.droppedToolCalls ?? 0) + all.length - calls.length;
  const text = r.message.content;
  if (calls.length === 0 && !text?.trim()) return { kind: 'empty' };
  const message = { role: 'assistant' as const, content: text, ...(calls.length ? { tool_calls: calls } : {}) };
  // The runtime's own instructions handed back (a corrected small model parrots the correction): not an answer,
  // and not a broken call either, though the echo may hold a call tag ("… inside <tools></tools> XML tags", seen
  // five times in a row): the echo correction, which holds no call format to hand back. Counts towards the
  // invalid-call stop.
  const echo = calls.length === 0 ? echoedInstructions(text, task) : undefined;
  if (echo) return { kind: 'unreadable', message, correction: echoCorrection(echo), why: 'echo' };
  // A repeated result is asked for once more (the model activity takes it as the answer the second time).
  if (r.repeatedResult) return { kind: 'recheck', message, nudge: REPEATED_RESULT_NUDGE, why: 'repeated result' };
  // A tool call the model wrote as text and we could not read: never its answer. It gets a correction, and counts
  // like an invalid call (so a model that cannot produce one is stopped, not looped).
  if (r.unparsedToolCall) return { kind: 'unreadable', message, correction: unparsedCallCorrection(r.unparsedToolCall) };
  if (calls.length === 0) {
    const madeUp = madeUpResult(text, anyResultYet);
    if (madeUp) return { kind: 'unreadable', message, correction: madeUpResultCorrection(madeUp), why: 'made-up result' };
    if (announceCheck && announcesAction(text)) return { kind: 'recheck', message, nudge: ANNOUNCED_ACTION_NUDGE, why: 'announced action' };
    if (recheck) return { kind: 'recheck', message, nudge: UNTOOLED_ANSWER_NUDGE, why: 'untooled answer' };
    if (format && r.formatError) {
      if (!format.asked) return { kind: 'recheck', message, nudge: answerFormatNudge(format.format, r.formatError), why: 'answer format' };
      const error = `the answer does not have the requested response_format after it was asked once more: ${r.formatError}`;
      return { kind: 'fail', reason: ANSWER_FORMAT_FAILURE, error };
    }
    return { kind: 'answer', message, text: text ?? '' };
  }
  return { kind: 'tools', message, calls, ...(dropped > 0 ? { dropped } : {}) };
}

function stepCall(c: Conversation): Promise<ModelCallResult> {
  // The tools the model is shown: all the offered ones, or for a small model the core ones (tool-view.ts).
  const anyResultYet = c.transcript.messages.some((m) => m.role === 'tool');
  const client = c.clientTools.offer;
  return callModel(c, { tools: c.shownTools, ...(client ? { client } : {}), describe: (r) => describeReply(r, anyResultYet, c.input.prompt) });
}

/** The step record's summary of a reply: its tool calls, or an answer. */
function describeReply(r: ModelCallResult, anyResultYet = true, task?: string): string {
  const names = r.message.tool_calls?.map((t) => t.function.name) ?? [];
  const mode = r.toolMode ? ` (${r.toolMode === 'text' ? 'text mode' : 'constrained'})` : '';
  const how = mode || (r.fromText ? ' written as text' : '');
  return names.length ? `${names.length} tool call(s)${how}: ${names.join(', ')}` : `${replyKind(r, anyResultYet, task)}${mode}`;
}

function replyKind(r: ModelCallResult, anyResultYet: boolean, task: string | undefined): string {
  if (!r.message.tool_calls?.length && echoedInstructions(r.message.content, task)) return "echo of the runtime's instructions";
  if (r.repeatedResult) return 'repeated tool result';
  if (r.unparsedToolCall) return 'unreadable tool call';
  return madeUpResult(r.message.content, anyResultYet) ? 'made-up tool result' : 'answer';
}

/** The profile after the current one in the primary's chain (its `fallbacks`, then the run's fallbackModel). */
async function nextInChain(c: Pick<Conversation, 'input' | 'model' | 'note'>): Promise<string | undefined> {
  let chain: string[];
  try {
    ({ chain } = await localActivities.modelFallbacks({
      ...(c.input.model ? { primary: c.input.model } : {}),
      ...(c.input.fallbackModel ? { runFallback: c.input.fallbackModel } : {}),
    }));
  } catch (err) {
    if (isCancellation(err)) throw err;
    c.note('model', `no fallback: the worker could not name the fallback profiles (${describeFailure(err).message})`);
    return undefined;
  }
  const at = chain.indexOf(c.model.profile ?? chain[0]!);
  return at >= 0 ? chain[at + 1] : undefined;
}

/**
 * The final tool-less call that turns a forced stop into a useful summary (the turn appended the request). Not
 * stoppable: the summary is what the user gets for an interrupted budget.
 */
export async function finalSummary(c: Conversation): Promise<{ text: string } | { reason: string; error: string }> {
  try {
    const r = await CancellationScope.nonCancellable(() => callModel(c, { tools: [], purpose: 'final summary, no tools', describe: describeReply }));
    return { text: r.message.content ?? '' };
  } catch (err) {
    const f = describeFailure(err);
    return { reason: f.type, error: `grace call failed: ${f.message}` };
  }
}
