// `POST /v1/chat/completions`: a request with a session id is the next turn of that session's durable chat
// conversation; without one it is a task conversation of its own. Answered as the OpenAI API answers: a
// `chat.completion`, or with `stream: true` server-sent `chat.completion.chunk`s and `data: [DONE]`.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConversationHandle, Hermes } from '../client';
import type { ConversationResult, RunStatus, TurnResult, Usage } from '../shared/contract';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { newConversationId } from '../shared/ids';
import { ApiError, asApiError, badRequest, conflict, noWorker } from './errors';
import { sendJson } from './json-response';
import { eventsCursor, followEvents } from './live';
import { checkSameSend, checkSameTask } from './idempotency';
import { parseChatRequest, taskPrompt, taskWorkflowId, type ChatRequest, type ProfileNames } from './request';
import { describeConversation, existingSession, openSession, sendToolResults, sendTurn, type SessionDefaults } from './sessions';
import { inFlightKey, type TurnsInFlight } from './session-view';
import { redactChatMessages } from '../security/user-input';
import { SseWriter } from './sse';
import { TurnStream, type ChunkDelta, type TurnStreamOptions } from './turn-stream';
import { ANSWER_FORMAT_FAILURE, type ToolCallsPause } from '../shared/client-tools';
import { oneOffResults, oneOffSessionId, pauseDeltas, pauseMessage } from './client-calls';
import { firstWait, waitingReply, type Waiting } from './waiting';

export interface CompletionsContext {
  hermes: Hermes;
  profiles: () => ProfileNames;
  defaults: SessionDefaults;
  /** The principal whose token the request carries (principals.ts); undefined with one token or none. */
  principal?: string;
  /** A client that disconnects before the answer interrupts the turn (default: it goes on). */
  interruptOnDisconnect: boolean;
  /** The session turns this server has sent and not yet seen answered (the session view's `turn_in_progress`). */
  inFlight: TurnsInFlight;
  log: (line: string) => void;
}

/** What one request's turn ends with: a session turn's result, or a task conversation's. */
type Outcome = Pick<TurnResult, 'status' | 'answer' | 'usage' | 'reason'> & { turn?: number; error?: string };
/** Or, with client tools, the calls the turn waits on (client-calls.ts). */
type Reply = Outcome | ToolCallsPause;

/** What a request runs: its conversation, where its events start, and what it ends with. */
interface Begun {
  handle: ConversationHandle;
  sessionId?: string;
  /** A one-off session (a request with client tools and no session id): ended once it answers. */
  oneOff?: string;
  cursor: number | undefined;
  done: Promise<Reply>;
}

/** How long a stream waits, once the turn's result is in, for the events still on their way (tool lines, the tail). */
const DRAIN_MS = 1_500;

export async function chatCompletions(ctx: CompletionsContext, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  // Where a user's messages enter: secrets in them are replaced before anything is started or sent (X-Hermes-Redacted says how many).
  const { request: r, redaction } = redactChatMessages(parseChatRequest(body, req.headers, ctx.profiles()), ctx.hermes.client);
  // Counted from the moment the request is read: a view of the session taken meanwhile says a turn is under way.
  const sent = r.sessionId ? ctx.inFlight.begin(inFlightKey(r.sessionId, ctx.principal)) : () => undefined;
  const begun = await checkedBegin(ctx, r).catch((err: unknown) => {
    sent();
    throw err;
  });
  const { handle, sessionId, oneOff, cursor } = begun;
  const done = oneOff ? begun.done.then((o) => endOneOff(ctx, handle, o)) : begun.done;
  done.then(sent, sent);
  const meta = { id: `chatcmpl-${randomUUID().replace(/-/g, '')}`, created: Math.floor(Date.now() / 1000), model: r.model };
  const headers = {
    'X-Hermes-Conversation-Id': handle.id,
    ...(sessionId ? { 'X-Hermes-Session-Id': sessionId } : {}),
    ...(redaction ? { 'X-Hermes-Redacted': String(redaction.count) } : {}),
  };
  watchDisconnect(ctx, req, res, handle);
  if (!r.stream) {
    // A turn that waits for a person is said at once (with how to answer); the turn goes on waiting.
    const sessionPath = sessionId ? `/v1/sessions/${sessionId}` : undefined;
    const stop = new AbortController();
    const shaper = new TurnStream(shaperOptions(r, sessionPath));
    const o = await Promise.race([done, firstWait(handle, cursor, shaper, stop.signal, ctx.log)]).finally(() => stop.abort());
    if (isReplyPause(o)) {
      const choices = [{ index: 0, message: pauseMessage(o, oneOff), logprobs: null, finish_reason: 'tool_calls' }];
      const hermes = { conversation_id: handle.id, session_id: sessionId ?? null, status: 'tool_calls', turn: o.turn };
      sendJson(res, 200, { ...meta, object: 'chat.completion', choices, usage: usageOf(o.usage), hermes }, headers);
      return;
    }
    if ('type' in o) {
      const w = waitingReply(o, sessionPath);
      sendJson(
        res,
        200,
        {
          ...meta,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: w.content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage: null,
          hermes: { conversation_id: handle.id, session_id: sessionId ?? null, ...w.hermes },
        },
        headers,
      );
      return;
    }
    failedOutcome(o);
    sendJson(
      res,
      200,
      {
        ...meta,
        object: 'chat.completion',
        choices: [
          { index: 0, message: { role: 'assistant', content: o.answer, refusal: null }, logprobs: null, finish_reason: finishReason(o.status) },
        ],
        usage: usageOf(o.usage),
        hermes: hermesFields(handle, sessionId, o),
      },
      headers,
    );
    return;
  }
  await stream(ctx, res, headers, meta, r, { ...begun, done });
}

function isReplyPause(o: Reply | Waiting): o is ToolCallsPause {
  return 'status' in o && o.status === 'tool_calls';
}

/** How the stream (or the wait) reads this request's events: a new message's turn, or the turn its results resume. */
function shaperOptions(r: ChatRequest, sessionPath: string | undefined): TurnStreamOptions {
  return {
    ...(sessionPath ? { sessionPath } : {}),
    ...(sessionPath && !r.results ? { text: r.last } : {}),
    ...(r.offer?.responseFormat ? { holdAnswer: true } : {}),
  };
}

/** A one-off session has served its request once the turn answers: it ends (a pause keeps it waiting). */
function endOneOff(ctx: CompletionsContext, handle: ConversationHandle, o: Reply): Reply {
  if (!isReplyPause(o)) handle.end('the request it served was answered').catch((err: Error) => ctx.log(`end of ${handle.id}: ${err.message}`));
  return o;
}

async function checkedBegin(ctx: CompletionsContext, r: ChatRequest): ReturnType<typeof begin> {
  // Checked before anything is started: without a worker the conversation would wait, stored, with nobody to run it.
  if (!(await ctx.hermes.workerPolling())) throw noWorker(ctx.hermes.taskQueue);
  return begin(ctx, r);
}

async function begin(ctx: CompletionsContext, r: ChatRequest): Promise<Begun> {
  const idempotencyKey = r.idempotencyKey;
  if (r.results) return resume(ctx, r, r.results);
  // Client tools or an answer format without a session id: a one-off session, whose turn can wait for the client.
  const oneOff = !r.sessionId && r.offer ? oneOffSessionId() : undefined;
  const sessionId = r.sessionId ?? oneOff;
  if (sessionId) {
    const { handle, started } = await openSession(ctx.hermes, { ...r, sessionId }, ctx.defaults, ctx.principal);
    // A retry attaches to its turn; the same key with another message is refused, not answered with the old turn.
    if (idempotencyKey && !started) await checkSameSend(handle, idempotencyKey, r.last);
    // Taken before the message is sent, so the stream holds exactly this turn (and any queued before it, skipped).
    const cursor = await eventsCursor(handle);
    const done = sendTurn(handle, r.last, idempotencyKey, r.offer);
    done.catch(() => undefined);
    return { handle, sessionId, ...(oneOff ? { oneOff } : {}), cursor, done };
  }
  // With an Idempotency-Key, the task's workflow id is derived from it: a retried request finds its task.
  const id = idempotencyKey ? taskWorkflowId(idempotencyKey, ctx.principal) : undefined;
  // Named after the new message, not the prompt (which opens with the earlier messages: "The conversation so far…").
  const summary = r.last.trim().split('\n')[0]!.slice(0, 200);
  const start = {
    ...ctx.defaults.start,
    prompt: taskPrompt(r),
    summary,
    ...(r.profile ? { model: r.profile } : {}),
    ...(r.system ? { system: r.system } : {}),
  };
  // A task of this key that has already ended is attached to as well: a start would run it again (Temporal allows
  // a closed workflow's id to be reused), and a retry must get the answer it missed.
  const attach = async () => {
    const existing = ctx.hermes.get(id!);
    await checkSameTask(existing, idempotencyKey!, start);
    return existing;
  };
  const handle =
    id && (await describeConversation(ctx.hermes, id)) !== 'none'
      ? await attach()
      : await ctx.hermes.start({ ...start, id: id ?? newConversationId(summary) }).catch(async (err: unknown) => {
          // Two first requests with the key at once: the other one started it.
          if (id && err instanceof WorkflowExecutionAlreadyStartedError) return attach();
          // A random suffix that clashed (one chance in ~2·10^9 per slug): another one.
          if (err instanceof WorkflowExecutionAlreadyStartedError) return ctx.hermes.start({ ...start, id: newConversationId(summary) });
          const m = (err as Error).message ?? '';
          throw /^invalid start options|^the (prompt|conversation's input)/.test(m) ? badRequest('messages', m) : err;
        });
  const done = handle.result().then(taskOutcome);
  done.catch(() => undefined);
  return { handle, cursor: 0, done };
}

/** A request that ends with tool results: they go to the session whose turn waits on them, which goes on. */
async function resume(ctx: CompletionsContext, r: ChatRequest, given: NonNullable<ChatRequest['results']>): Promise<Begun> {
  const oneOff = r.sessionId ? undefined : oneOffResults(given);
  const sessionId = r.sessionId ?? oneOff!.sessionId;
  const { handle, running } = await existingSession(ctx.hermes, sessionId, ctx.principal);
  if (!running) throw conflict(`the session's conversation has ended: no tool call of it awaits results`, 'session_ended');
  const cursor = await eventsCursor(handle);
  const done = sendToolResults(handle, oneOff?.results ?? given, r.offer, r.idempotencyKey);
  done.catch(() => undefined);
  return { handle, sessionId, ...(oneOff ? { oneOff: oneOff.sessionId } : {}), cursor, done };
}

function taskOutcome(r: ConversationResult): Outcome {
  return { status: r.status, answer: r.answer, usage: r.usage, ...(r.reason ? { reason: r.reason } : {}), ...(r.error ? { error: r.error } : {}) };
}

async function stream(
  ctx: CompletionsContext,
  res: ServerResponse,
  headers: Record<string, string>,
  meta: { id: string; created: number; model: string },
  r: ChatRequest,
  t: Begun,
): Promise<void> {
  const sse = new SseWriter(res, headers);
  const withUsage = r.includeUsage ? { usage: null } : {};
  const chunk = (delta: ChunkDelta, finish: string | null = null) => ({
    ...meta,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...withUsage,
  });
  sse.send(chunk({ role: 'assistant', content: '' }));
  // A chat's events from the cursor may begin with turns queued before this one: the shaper skips to the
  // turn.started of this text.
  const shaper = new TurnStream(shaperOptions(r, t.sessionId ? `/v1/sessions/${t.sessionId}` : undefined));
  const stop = new AbortController();
  res.once('close', () => stop.abort());
  const following = followEvents(t.handle, t.cursor, stop.signal, ctx.log, (e) => {
    for (const d of shaper.onEvent(e)) sse.send(chunk(d));
    return shaper.answered || shaper.paused || !sse.open;
  });
  let o: Reply;
  try {
    o = await t.done;
  } catch (err) {
    stop.abort();
    const e = asApiError(err);
    sse.send(e.body);
    sse.done();
    return;
  }
  await Promise.race([following, new Promise((resolve) => setTimeout(resolve, DRAIN_MS).unref())]);
  stop.abort();
  if (isReplyPause(o)) {
    for (const d of pauseDeltas(o, t.oneOff)) sse.send(chunk(d));
    sse.send(chunk({}, 'tool_calls'));
    if (r.includeUsage) sse.send({ ...meta, object: 'chat.completion.chunk', choices: [], usage: usageOf(o.usage) });
    sse.done();
    return;
  }
  for (const d of shaper.finish(o.answer, o.status)) sse.send(chunk(d));
  const failed = failure(o);
  if (failed) sse.send(failed.body);
  sse.send(chunk({}, finishReason(o.status)));
  if (r.includeUsage) sse.send({ ...meta, object: 'chat.completion.chunk', choices: [], usage: usageOf(o.usage) });
  sse.done();
}

/** A disconnect: the conversation goes on (the answer waits in its history); with the option, the turn is interrupted. */
function watchDisconnect(ctx: CompletionsContext, req: IncomingMessage, res: ServerResponse, handle: ConversationHandle): void {
  res.once('close', () => {
    if (res.writableFinished) return;
    if (!ctx.interruptOnDisconnect) {
      ctx.log(`client of ${handle.id} disconnected; the conversation goes on`);
      return;
    }
    ctx.log(`client of ${handle.id} disconnected: interrupting the turn (--interrupt-on-disconnect)`);
    handle.interrupt({ reason: 'the HTTP client disconnected' }).catch((err: Error) => ctx.log(`interrupt of ${handle.id} failed: ${err.message}`));
  });
  void req;
}

function failure(o: Outcome): ApiError | undefined {
  if (o.status !== 'failed' && o.status !== 'cancelled') return undefined;
  // A session turn's result names its reason only; the one a client caused is said in words.
  const error =
    o.error ??
    (o.reason === ANSWER_FORMAT_FAILURE ? "the model's answer did not have the requested response_format after it was asked once more" : undefined);
  return new ApiError(
    500,
    `the conversation ${o.status}${o.reason ? ` (${o.reason})` : ''}${error ? `: ${error}` : ''}`,
    'server_error',
    null,
    o.reason ?? o.status,
  );
}

function failedOutcome(o: Outcome): void {
  const f = failure(o);
  if (f) throw f;
}

/** finish_reason as OpenAI names it: a budget used up is `length`; every other end of a turn is `stop`. */
function finishReason(status: RunStatus): 'stop' | 'length' {
  return status === 'budget_exhausted' ? 'length' : 'stop';
}

function usageOf(u: Usage) {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.totalTokens,
    ...(u.reasoningTokens ? { completion_tokens_details: { reasoning_tokens: u.reasoningTokens } } : {}),
  };
}

function hermesFields(handle: ConversationHandle, sessionId: string | undefined, o: Outcome) {
  return {
    conversation_id: handle.id,
    session_id: sessionId ?? null,
    status: o.status,
    ...(o.turn !== undefined ? { turn: o.turn } : {}),
    ...(o.reason ? { reason: o.reason } : {}),
  };
}
