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
import type { ChatMessage, ModelCallResult } from '../../shared/wire';
import { isSummaryMessage, SUMMARISER_SYSTEM, summaryBody, summaryMessage, summaryRequest } from './compress-texts';
import { CHARS_PER_TOKEN } from '../state/compression-state';
import { COMPRESS_KEEP_TAIL, condenseToolOutputs, PRUNE_KEEP_TAIL, contextChars, headEnd, tailStart, transcript } from '../rules/context-ops';
import type { Conversation } from '../state/conversation-state';
import { describeFailure } from '../engine/failures';
import { callModel } from './model-call';

const MAX_OVERFLOW_COMPRESSIONS = 3;
/** A compression that saves less than this share of the context's characters did not help. */
const INEFFECTIVE = 0.1;
/** After a compression the context should be under this share of the target. */
const ROOM = 0.75;

/** The current profile's context window, once a model result reported it. */
function windowOf(c: Pick<Conversation, 'compression' | 'model'>): number | undefined {
  return c.compression.windowOf(c.model.profile);
}

function estimate(c: Pick<Conversation, 'compression' | 'transcript'>): number {
  return c.compression.tokensFor(contextChars(c.transcript.messages));
}

/**
 * Before a model step: compresses when the estimate passes `compressAt` of the window (and it has not stopped
 * helping). Nothing to do, nothing to await: the check is synchronous, so a step that does not compress creates no
 * promise (in the workflow sandbox the SDK's promise hook takes a stack trace of each one).
 */
export function maybeCompress(c: Conversation): Promise<void> | undefined {
  const window = windowOf(c);
  if (!window || !c.limits.compressAt) return undefined;
  c.compression.startTurn(c.meter.turn);
  if (c.compression.off) return undefined;
  const threshold = c.limits.compressAt * window;
  const tokens = c.compression.hasEstimate ? estimate(c) : 0;
  if (tokens <= threshold) return undefined;
  const why = `~${tokens} prompt tokens, over ${Math.round(c.limits.compressAt * 100)} % of the ${window}-token window`;
  return compress(c, threshold, why).then((saved) => {
    if (c.compression.judge(saved, INEFFECTIVE)) {
      c.note('context', 'automatic compression stopped for this turn: the last two compressions saved less than 10 % each');
    }
  });
}

/** After a ContextOverflow: compresses (at most 3 times a turn); true when the step should be tried again. */
export async function compressOnOverflow(c: Conversation): Promise<boolean> {
  c.compression.startTurn(c.meter.turn);
  if (!c.compression.overflowed(MAX_OVERFLOW_COMPRESSIONS)) {
    c.note('context', `context overflow after ${MAX_OVERFLOW_COMPRESSIONS} compressions in this turn: giving up`);
    return false;
  }
  // The endpoint's limit is below what it was sent: aim well under that, and under the usual threshold.
  const window = windowOf(c);
  const threshold = window && c.limits.compressAt ? c.limits.compressAt * window : Infinity;
  // Only the last few messages keep their tool outputs then (as the plain prune did), not the whole recent tail.
  return (await compress(c, Math.min(threshold, estimate(c) * 0.7), 'context overflow', PRUNE_KEEP_TAIL)) > 0;
}

/** Both phases as needed to get under `target` tokens; returns the share of characters saved (0 when nothing changed). */
async function compress(c: Conversation, target: number, why: string, keepOutputs = COMPRESS_KEEP_TAIL): Promise<number> {
  const original = c.transcript.messages.slice();
  const before = contextChars(original);
  const next = original.slice();
  const condensed = condenseToolOutputs(next, tailStart(next, keepOutputs, headEnd(next)));
  if (condensed) c.transcript.rewrite(next);
  const done = [condensed ? `${condensed} old tool message(s) cut to one line` : 'no old tool output to cut'];
  // Cutting tool outputs must leave room, else the next steps compress again for a few % each (two of those in a
  // row turn compression off for the turn, and a long turn then outgrows the window): summarise the middle too.
  if (estimate(c) > target * ROOM) done.push(await summarise(c, original));
  c.compression.compressed();
  const after = contextChars(c.transcript.messages);
  const saved = before > 0 ? 1 - after / before : 0;
  c.publish({ type: 'compressed', before, after });
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
  const msgs = c.transcript.messages;
  const head = headEnd(msgs);
  const prev = s.summaryAt !== undefined && s.summaryAt >= head && isSummaryMessage(msgs[s.summaryAt]?.content ?? null) ? s.summaryAt : undefined;
  const from = prev !== undefined ? prev + 1 : head;
  const tail = tailStart(msgs, COMPRESS_KEEP_TAIL, from);
  // The request of the current chat turn stays verbatim (after the summary) while its turn runs.
  const turnAt = c.transcript.turnStart;
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
  // Served by the `context` query under a version of its own, one past the conversation's; a rewrite skips it.
  const version = c.transcript.version + 1;
  c.transcript.serve(version, request);
  let r: ModelCallResult;
  try {
    r = await callModel(c, {
      tools: [],
      purpose: 'context summary, no tools',
      context: { version, messages: request },
      describe: () => `context summary of ${middle.length} messages`,
    });
  } catch (err) {
    c.transcript.rewrite(msgs.slice(), { skip: 1 });
    if (isCancellation(err)) throw err;
    return `no summary: the summarising call failed (${describeFailure(err).message})`;
  }
  const body = r.message.content?.trim();
  if (!body) {
    c.transcript.rewrite(msgs.slice(), { skip: 1 });
    return 'no summary: the summarising call answered nothing';
  }
  const at = prev ?? head;
  const replaced = middle.length + (prev !== undefined ? 1 : 0);
  const kept = keepTurn !== undefined ? [msgs[keepTurn]!] : [];
  const next = [
    ...msgs.slice(0, at),
    { role: 'user' as const, content: summaryMessage(body, replaced, s.count + 1, [...c.todo.items]) },
    ...kept,
    ...msgs.slice(tail),
  ];
  // Indices into the context move with it.
  const turnStart = turnAt >= tail ? turnAt - tail + at + 1 + kept.length : turnAt >= at ? (keepTurn !== undefined ? at + 1 : at) : undefined;
  s.summarised(at);
  c.transcript.rewrite(next, { skip: 1, ...(turnStart !== undefined ? { turnStart } : {}) });
  return `${prev !== undefined ? 'summary updated' : 'summary written'}: ${middle.length} message(s) → 1, ${msgs.length - tail} recent kept verbatim`;
}
