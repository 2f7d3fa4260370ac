// The session endpoints: `GET /v1/sessions/ID` (state and last answer; `?wait=N` waits up to N s for a turn
// under way to end or to wait for a person, session-view.ts), `POST …/interrupt|answer|approve`, and `GET …/events?from=N` (the conversation's events as
// server-sent events, each step event with `id: <offset>`, so an EventSource resumes by itself with Last-Event-ID).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CompletionsContext } from './chat-completions';
import { ApiError, badRequest, noWorker } from './errors';
import { answerArgs, approveArgs, existingSession, interruptArgs, updateRejection } from './sessions';
import { sessionView, sessionViewWhenIdle } from './session-view';
import { SseWriter } from './sse';
import { answerUpdate, approveUpdate } from '../shared/messages';
import { refusedWhenClosed } from '../late-updates';

const MAX_WAIT_SEC = 600;

export async function sessionRoute(
  ctx: CompletionsContext,
  sessionId: string,
  action: 'interrupt' | 'answer' | 'approve' | undefined,
  body: unknown,
  query: URLSearchParams,
  req: IncomingMessage,
): Promise<unknown> {
  if (!action) {
    const wait = query.get('wait');
    if (wait === null) return sessionView(ctx.hermes, sessionId, ctx.inFlight, ctx.principal);
    const seconds = Number(wait);
    if (!wait.trim() || !(seconds >= 0 && seconds <= MAX_WAIT_SEC)) throw badRequest('wait', `wait must be seconds between 0 and ${MAX_WAIT_SEC}`);
    const gone = new AbortController();
    req.once('close', () => gone.abort());
    return sessionViewWhenIdle(ctx.hermes, sessionId, seconds, ctx.inFlight, gone.signal, ctx.principal);
  }
  // The body is checked first: a bad one never reaches the conversation.
  const args = action === 'interrupt' ? interruptArgs(body) : action === 'answer' ? answerArgs(body) : approveArgs(body);
  const { handle, running } = await existingSession(ctx.hermes, sessionId, ctx.principal);
  if (!running) throw new ApiError(409, `session "${sessionId}" has ended: nothing to ${action}`, 'conflict_error', null, 'session_ended');
  if (action === 'interrupt') {
    await handle.interrupt(args as ReturnType<typeof interruptArgs>);
    return { ok: true, session_id: sessionId, conversation_id: handle.id };
  }
  // Updates need a worker to run their validator: without one they would wait.
  if (!(await handle.workerPolling())) throw noWorker(ctx.hermes.taskQueue);
  try {
    if (action === 'answer') {
      const answered = () => handle.workflow.executeUpdate(answerUpdate, { args: [{ text: args as string }] });
      return { ok: true, call_id: (await refusedWhenClosed(handle.workflow, 'answer', answered)).callId };
    }
    const a = args as ReturnType<typeof approveArgs>;
    const r = await refusedWhenClosed(handle.workflow, 'approve', () => handle.workflow.executeUpdate(approveUpdate, { args: [a] }));
    return { ok: true, call_id: r.callId, decision: r.decision, ...(r.workflowId ? { workflow_id: r.workflowId } : {}) };
  } catch (err) {
    throw updateRejection(err);
  }
}

export async function sessionEvents(
  ctx: CompletionsContext,
  req: IncomingMessage,
  res: ServerResponse,
  sessionId: string,
  query: URLSearchParams,
): Promise<void> {
  const raw = query.get('from') ?? headerOf(req, 'last-event-id');
  const from = raw === undefined || raw === null || raw === '' ? undefined : Number(raw);
  if (from !== undefined && !(Number.isInteger(from) && from >= 0)) throw badRequest('from', 'from must be a whole number ≥ 0 (an event offset)');
  const { handle } = await existingSession(ctx.hermes, sessionId, ctx.principal);
  const sse = new SseWriter(res, { 'X-Hermes-Conversation-Id': handle.id });
  const stop = new AbortController();
  res.once('close', () => stop.abort());
  // Last-Event-ID is the offset of the last event seen: resume after it.
  const start = query.get('from') !== null ? from : from !== undefined ? from + 1 : undefined;
  try {
    for await (const e of handle.events({ ...(start !== undefined ? { from: start } : {}), signal: stop.signal })) {
      if (!sse.open) break;
      const step = e.type !== 'delta' && e.type !== 'tool_call.forming' && e.type !== 'attempt.restarted' && e.type !== 'gap';
      sse.send(e, step ? e.offset : undefined);
    }
    sse.done();
  } catch (err) {
    if (!stop.signal.aborted) {
      ctx.log(`events of ${handle.id}: ${(err as Error).message}`);
      sse.send({ error: { message: (err as Error).message, type: 'server_error', param: null, code: 'events_failed' } });
    }
    sse.end();
  }
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
