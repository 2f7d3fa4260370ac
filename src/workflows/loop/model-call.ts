// One model call, whatever it is for — a step with tools, the tool-less final summary, compression's summarising
// call: the activity with its options and summary, the call named in the details while in flight, a trace when it
// needed retries, its usage counted, its step recorded. The caller decides what the reply means.
import type { ClientOffer } from '../../shared/client-tools';
import { extendDigest } from '../../shared/digest';
import type { ChatMessage, ModelAttemptFailure, ModelCallResult } from '../../shared/wire';
import { modelActivities, modelOptions } from '../engine/activity-options';
import { contextChars } from '../rules/context-ops';
import { echoedInstructions } from '../rules/echo-check';
import { describeFailure } from '../engine/failures';
import type { Conversation } from '../state/conversation-state';
import { reportToParent } from '../subagents/reporter';
import { traceOutcome } from '../engine/trace';

export interface ModelCallSpec {
  tools: readonly string[];
  /** After "model step N" in the activity's summary: what the call is for. */
  purpose?: string;
  /** Compression's summarising call sees a context of its own, served under `version` by the `context` query. */
  context?: { version: number; messages: ChatMessage[] };
  /** The step record's summary. */
  describe: (r: ModelCallResult) => string;
  /** What the client offers this turn (`hermes serve`): its tools beside `tools`, the tool choice, the answer format. */
  client?: ClientOffer;
}

/**
 * A run's first context goes with its first call up to this size (a system prompt and a request, typically 2–6k):
 * it saves the call a `context` query, once per run, for a few KB of history. A carried context larger than this is
 * queried as before.
 */
const FIRST_CALL_CONTEXT_CHARS = 16_000;

export function callModel(c: Conversation, spec: ModelCallSpec): Promise<ModelCallResult> {
  const step = c.meter.modelCalled();
  const profile = c.model.profile;
  // Numbered as `hermes inspect --step` and the state query's modelStep number it: every model call counts.
  const label = `step ${step}${spec.purpose ? `: ${spec.purpose}` : ''}`;
  const own = spec.context;
  const chars = own ? 0 : contextChars(c.transcript.messages);
  const whole = own ? undefined : c.transcript.wholeForFirstCall(chars, FIRST_CALL_CONTEXT_CHARS);
  const input = own
    ? { context: { version: own.version, count: own.messages.length, digest: extendDigest('', own.messages) }, purpose: 'summary' as const }
    : {
        context: { version: c.transcript.version, count: c.transcript.length, digest: c.transcript.digest(), ...(whole ? { messages: whole } : {}) },
        ...(c.compression.windowOf(profile) === undefined ? { window: true as const } : {}),
        // Catalog tools' definitions come from the recorded list (by digest), not from this input: history stays small.
        ...(c.toolList && spec.tools.length ? { toolList: c.toolList.digest } : {}),
        ...clientFields(spec.client),
      };
  const call = modelActivities.callModel.executeWithOptions(modelOptions(c.limits, label), [{ ...input, profile, tools: [...spec.tools], step }]);
  const model = profile ?? 'default';
  c.publish({ type: 'model.started', model }, step);
  c.events.modelCalling(step);
  // Not an async function: its own promise and the one awaiting the call would each cost a stack trace (calling()).
  return c.calling(
    `model ${label} (profile ${model})`,
    call,
    (r) => {
      c.events.modelCalling(undefined);
      c.publish({ type: 'model.finished', model, usage: r.usage, ...replyShape(r, spec.tools.length > 0) }, step);
      if (r.modeNote) c.note('model', `profile ${model}: ${r.modeNote}`);
      // A retried call leaves a trace first (an upsert); the rest waits for it, as it always has.
      if (r.attempt)
        return traceOutcome(c.board, retriedCall(`model ${label}`, r.attempt, r.failures)).then(() => called(c, spec, r, { chars, profile }));
      return called(c, spec, r, { chars, profile });
    },
    (err) => {
      c.publish({ type: 'model.finished', model, kind: 'failed', error: describeFailure(err).message.slice(0, 300) }, step);
      c.events.modelCalling(undefined);
      throw err;
    },
  );
}

/** What every model call's reply does to the conversation: usage, the compression estimate, the step record. */
function called(
  c: Conversation,
  spec: ModelCallSpec,
  r: ModelCallResult,
  { chars, profile }: { chars: number; profile: string | undefined },
): ModelCallResult {
  // Its usage counts like any model call's (budgets, the parent's roll-up).
  c.meter.spend(r.usage);
  if (!spec.context) c.compression.learn(r, chars, profile);
  // A sub-agent that goes on reports its totals now; a reply without tool calls ends it, and its result reports them.
  if (r.message.tool_calls?.length) reportToParent(c);
  if (c.limits.maxCostUsd > 0 && r.usage.totalTokens > 0 && r.usage.costUsd === 0 && c.meter.warn('unpriced')) {
    c.note('budget', `maxCostUsd cannot be enforced: model profile ${profile ?? 'default'} has no prices`);
  }
  c.record({ kind: 'model', name: r.model, summary: spec.describe(r), ok: true, ...c.meter.redacted(r.redactions) });
  c.board.publishProgress();
  return r;
}

/** The input's fields for the client's offer; none without one, so other calls record what they did before. */
function clientFields(o: ClientOffer | undefined) {
  const tools = o?.tools?.length ? o.tools : undefined;
  return {
    ...(tools ? { clientTools: tools } : {}),
    ...(tools && o?.toolChoice ? { toolChoice: o.toolChoice } : {}),
    ...(o?.responseFormat ? { answerFormat: o.responseFormat } : {}),
  };
}

/** What a watcher needs of a reply: what kind it is and, when it has text, the text as recorded. */
function replyShape(
  r: ModelCallResult,
  withTools: boolean,
): { kind: 'answer' | 'tools' | 'empty' | 'unreadable'; toolCalls?: number; text?: string } {
  const calls = r.message.tool_calls?.length ?? 0;
  const text = r.message.content ?? undefined;
  // A step's reply that repeats the runtime's instructions is not an answer (model-step.ts classifies it so too).
  const unreadable = r.unparsedToolCall || r.repeatedResult || (withTools && echoedInstructions(text));
  const kind = calls ? 'tools' : unreadable ? 'unreadable' : text?.trim() ? 'answer' : 'empty';
  return { kind, ...(calls ? { toolCalls: calls } : {}), ...(text ? { text } : {}) };
}

/** The trace of a call that succeeded on a retry: how many attempts, and why the earlier ones failed. */
function retriedCall(what: string, attempt: number, failures: ModelAttemptFailure[] = []): string {
  // The endpoint's address is on the activity's row already: keep what it answered.
  const said = (m: string) => m.replace(/^model endpoint \S+ /, '').slice(0, 60);
  const why = failures.length ? `: ${failures.map((f) => `${f.type} (${said(f.message)})`).join(', ')}` : '';
  return `${what} succeeded on attempt ${attempt} after ${attempt - 1} failed${why}`;
}
