// Context compression before the model rejects the context. Before each model step the prompt tokens of the next
// request are estimated (the last reported prompt tokens, plus what the context gained since at 3.5 characters a
// token); past `limits.compressAt` of the profile's context window the context is compressed:
//   1. without a model call: old tool results become one-line summaries (context-ops.ts, condenseToolOutputs);
//   2. if the estimate is still above: the middle of the conversation (after the first user request, before the
//      recent tail) is replaced by a structured summary written by a tool-less model call; a later compression
//      updates that summary.
// A ContextOverflow compresses too (at most 3 times a turn). Two automatic compressions in a row that save less
// than 10 % stop automatic compression for the turn.
//
// History: the summary enters it once, as the summarising call's result; the call's input is a context reference
// like every model call's (the `context` query serves the summarising context under a version of its own).
import { isCancellation } from '@temporalio/workflow';
import { extendDigest } from '../shared/digest';
import type { ChatMessage, ModelCallResult } from '../shared/wire';
import { acts, modelOptions } from './activities';
import { isSummaryMessage, SUMMARISER_SYSTEM, summaryBody, summaryMessage, summaryRequest } from './compress-prompts';
import { COMPRESS_KEEP_TAIL, condenseToolOutputs, PRUNE_KEEP_TAIL, contextChars, headEnd, tailStart, transcript } from './context-ops';
import { describeFailure } from './failures';
import type { Conversation } from './state';
import { addUsage } from './usage';

const MAX_OVERFLOW_COMPRESSIONS = 3;
/** A compression that saves less than this share of the context's characters did not help. */
const INEFFECTIVE = 0.1;
/**
 * Characters per token of what the context gained or lost since the last call. Not the last call's ratio: its
 * prompt tokens include the tool definitions, which do not grow with the context.
 */
const CHARS_PER_TOKEN = 3.5;

const profileKey = (c: Conversation) => c.profile ?? '';

/** The current profile's context window, once a model result reported it. */
export function windowOf(c: Conversation): number | undefined {
  return c.compression.windows[profileKey(c)];
}

/** After each model call: the window (when asked for) and the prompt tokens of the context of `chars` characters. */
export function learnFromCall(c: Conversation, r: ModelCallResult, chars: number): void {
  const s = c.compression;
  if (r.contextWindow) s.windows[profileKey(c)] = r.contextWindow;
  if (r.usage.promptTokens > 0) {
    s.promptTokens = r.usage.promptTokens;
    s.promptChars = chars;
  }
}

/** Estimated prompt tokens of a request with a context of `chars` characters: the last reported ones, plus the growth since. */
export function tokensFor(c: Conversation, chars: number): number {
  const s = c.compression;
  return Math.round(s.promptTokens > 0 ? Math.max(0, s.promptTokens + (chars - s.promptChars) / CHARS_PER_TOKEN) : chars / CHARS_PER_TOKEN);
}

function startTurn(c: Conversation): void {
  const s = c.compression;
  if (s.turn === c.turn) return;
  Object.assign(s, { turn: c.turn, ineffective: 0, overflows: 0, off: false });
}

/** Before a model step: compresses when the estimate passes `compressAt` of the window (and it has not stopped helping). */
export async function maybeCompress(c: Conversation): Promise<void> {
  const window = windowOf(c);
  if (!window || !c.limits.compressAt) return;
  startTurn(c);
  const s = c.compression;
  if (s.off) return;
  const threshold = c.limits.compressAt * window;
  const tokens = c.compression.promptTokens > 0 ? tokensFor(c, contextChars(c.messages)) : 0;
  if (tokens <= threshold) return;
  const why = `~${tokens} prompt tokens, over ${Math.round(c.limits.compressAt * 100)} % of the ${window}-token window`;
  const saved = await compress(c, threshold, why);
  if (saved >= INEFFECTIVE) {
    s.ineffective = 0;
    return;
  }
  s.ineffective++;
  if (s.ineffective >= 2) {
    s.off = true;
    c.note('context', 'automatic compression stopped for this turn: the last two compressions saved less than 10 % each');
  }
}

/** After a ContextOverflow: compresses (at most 3 times a turn); true when the step should be tried again. */
export async function compressOnOverflow(c: Conversation): Promise<boolean> {
  startTurn(c);
  const s = c.compression;
  if (s.overflows >= MAX_OVERFLOW_COMPRESSIONS) {
    c.note('context', `context overflow after ${MAX_OVERFLOW_COMPRESSIONS} compressions in this turn: giving up`);
    return false;
  }
  s.overflows++;
  // The endpoint's limit is below what it was sent: aim well under that, and under the usual threshold.
  const window = windowOf(c);
  const threshold = window && c.limits.compressAt ? c.limits.compressAt * window : Infinity;
  // Only the last few messages keep their tool outputs then (as the plain prune did), not the whole recent tail.
  return (await compress(c, Math.min(threshold, tokensFor(c, contextChars(c.messages)) * 0.7), 'context overflow', PRUNE_KEEP_TAIL)) > 0;
}

/** Both phases as needed to get under `target` tokens; returns the share of characters saved (0 when nothing changed). */
async function compress(c: Conversation, target: number, why: string, keepOutputs = COMPRESS_KEEP_TAIL): Promise<number> {
  const original = c.messages;
  const before = contextChars(original);
  const next = original.slice();
  const condensed = condenseToolOutputs(next, tailStart(next, keepOutputs, headEnd(next)));
  if (condensed) c.rewriteContext(next);
  const done = [condensed ? `${condensed} old tool message(s) cut to one line` : 'no old tool output to cut'];
  if (tokensFor(c, contextChars(c.messages)) > target) done.push(await summarise(c, original));
  c.compression.count++;
  const after = contextChars(c.messages);
  const saved = before > 0 ? 1 - after / before : 0;
  c.note('context', `${why}: compressed ${before} → ${after} characters (${Math.round(saved * 100)} % saved): ${done.join('; ')}`);
  return saved;
}

/**
 * Replaces the middle of the context (after the first user request, or after the previous summary, up to the
 * recent tail) with a summary written by a tool-less model call. `source` is the context before the first phase
 * cut its tool outputs (same indices): the summary is written from the full messages. Returns what happened.
 */
async function summarise(c: Conversation, source: ChatMessage[]): Promise<string> {
  const s = c.compression;
  const msgs = c.messages;
  const head = headEnd(msgs);
  const prev = s.summaryAt !== undefined && s.summaryAt >= head && isSummaryMessage(msgs[s.summaryAt]?.content ?? null) ? s.summaryAt : undefined;
  const from = prev !== undefined ? prev + 1 : head;
  const tail = tailStart(msgs, COMPRESS_KEEP_TAIL, from);
  // The request of the current chat turn stays verbatim (after the summary) while its turn runs.
  const turnAt = c.turnStartMessage;
  const keepTurn = turnAt >= from && turnAt < tail && msgs[turnAt]!.role === 'user' ? turnAt : undefined;
  const middle = source.slice(from, tail).filter((_, k) => from + k !== keepTurn);
  if (middle.length < 2) return 'nothing in the middle to summarise';

  const budget = Math.min(200_000, Math.max(4_000, Math.floor((windowOf(c) ?? 32_000) * 0.4 * CHARS_PER_TOKEN)));
  const request: ChatMessage[] = [
    { role: 'system', content: SUMMARISER_SYSTEM },
    {
      role: 'user',
      content: summaryRequest(
        msgs[head - 1]?.role === 'user' ? msgs[head - 1]!.content! : undefined,
        prev !== undefined ? summaryBody(msgs[prev]!.content!) : undefined,
        transcript(middle, budget),
      ),
    },
  ];
  // Served by the `context` query under a version of its own, one past the conversation's.
  const version = c.contextVersion + 1;
  c.serveContext(version, request);
  c.modelCalls++;
  let r: ModelCallResult;
  try {
    r = await acts.callModel.executeWithOptions(modelOptions(c.limits, `step ${c.modelCalls}: context summary, no tools`), [
      {
        context: { version, count: request.length, digest: extendDigest('', request) },
        profile: c.profile,
        tools: [],
        step: c.modelCalls,
        purpose: 'summary',
      },
    ]);
  } catch (err) {
    c.rewriteContext(msgs.slice(), 1);
    if (isCancellation(err)) throw err;
    return `no summary: the summarising call failed (${describeFailure(err).message})`;
  }
  // Its usage counts like any model call's (budgets, the parent's roll-up).
  c.usage = addUsage(c.usage, r.usage);
  if (r.redactions) c.redactions += r.redactions;
  c.record({
    kind: 'model',
    name: r.model,
    summary: `context summary of ${middle.length} messages`,
    ok: true,
    ...(r.redactions ? { redactions: r.redactions } : {}),
  });
  const body = r.message.content?.trim();
  if (!body) {
    c.rewriteContext(msgs.slice(), 1);
    return 'no summary: the summarising call answered nothing';
  }
  const at = prev ?? head;
  const replaced = middle.length + (prev !== undefined ? 1 : 0);
  const kept = keepTurn !== undefined ? [msgs[keepTurn]!] : [];
  const next = [
    ...msgs.slice(0, at),
    { role: 'user' as const, content: summaryMessage(body, replaced, s.count + 1, c.todo) },
    ...kept,
    ...msgs.slice(tail),
  ];
  // Indices into the context move with it.
  if (turnAt >= tail) c.turnStartMessage = turnAt - tail + at + 1 + kept.length;
  else if (turnAt >= at) c.turnStartMessage = keepTurn !== undefined ? at + 1 : at;
  s.summaryAt = at;
  c.rewriteContext(next, 1);
  return `${prev !== undefined ? 'summary updated' : 'summary written'}: ${middle.length} message(s) → 1, ${msgs.length - tail} recent kept verbatim`;
}
