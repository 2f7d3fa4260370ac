// Sessions: one durable chat conversation per session id (workflow id `hermes-session-<id>`), opened by the
// first chat completion that names it and sent each later request's new user message. Also the session
// endpoints' bodies: the human-in-the-loop actions the OpenAI protocol cannot carry (the view: session-view.ts).
import { WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { ConversationHandle, Hermes } from '../client';
import type { BusyPolicy, StartOptions } from '../shared/contract';
import { NOTHING_PENDING, sendUpdate, toolResultsUpdate } from '../shared/messages';
import { isPause, type ClientOffer, type ToolResultsArgs, type TurnReply } from '../shared/client-tools';
import { refusedWhenClosed } from '../late-updates';
import { badRequest, conflict, notFound } from './errors';
import { renderEarlier, sessionWorkflowId, type ChatRequest } from './request';

/** The conversation's `system` option holds at most this much (contract.ts); older earlier messages are left out. */
const MAX_SYSTEM_CHARS = 100_000;

export interface SessionDefaults {
  busyPolicy: BusyPolicy;
  /** Start options every conversation this server starts gets (workspace, approval mode…). */
  start: Partial<StartOptions>;
}

/** Whether a workflow with this id exists, and whether it runs (describe; no worker needed). */
export async function describeConversation(hermes: Hermes, workflowId: string): Promise<'running' | 'closed' | 'none'> {
  try {
    const d = await hermes.get(workflowId).workflow.describe();
    return d.status.name === 'RUNNING' ? 'running' : 'closed';
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') return 'none';
    throw err;
  }
}

/**
 * The session's conversation, started when it has none running: a chat whose system prompt gets the request's
 * system messages and, as context, its earlier messages (a session that a client opens with a history, or one
 * whose conversation ended — idle timeout, ended — and starts again under the same workflow id).
 */
export async function openSession(
  hermes: Hermes,
  r: ChatRequest & { sessionId: string },
  d: SessionDefaults,
  principal?: string,
): Promise<{ handle: ConversationHandle; started: boolean }> {
  const id = sessionWorkflowId(r.sessionId, principal);
  if ((await describeConversation(hermes, id)) === 'running') return { handle: hermes.get(id), started: false };
  const system = sessionSystem(r);
  try {
    const handle = await hermes.start({
      ...d.start,
      mode: 'chat',
      id,
      busyPolicy: d.busyPolicy,
      ...(r.profile ? { model: r.profile } : {}),
      ...(system ? { system } : {}),
      summary: `session ${r.sessionId}: ${r.last.trim().split('\n')[0]!.slice(0, 200)}`,
    });
    return { handle, started: true };
  } catch (err) {
    // Two first requests at once: the other one started it.
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { handle: hermes.get(id), started: false };
    throw err;
  }
}

function sessionSystem(r: ChatRequest): string {
  const base = r.system ?? '';
  let earlier = r.earlier;
  let context = renderEarlier(earlier);
  while (earlier.length && base.length + context.length + 2 > MAX_SYSTEM_CHARS) {
    earlier = earlier.slice(1);
    context = renderEarlier(earlier);
  }
  return [base, context].filter((s) => s.trim()).join('\n\n');
}

/**
 * Sends the user message as the `send` update; resolves with the turn's result. `updateId` (the request's
 * Idempotency-Key) makes a retried request attach to the same turn instead of sending the message again:
 * Temporal de-duplicates updates by id within a run.
 */
export async function sendTurn(handle: ConversationHandle, text: string, updateId?: string, offer?: ClientOffer): Promise<TurnReply> {
  try {
    return await refusedWhenClosed(handle.workflow, 'send', () =>
      handle.workflow.executeUpdate(sendUpdate, { args: [{ text, ...offer }], ...(updateId ? { updateId } : {}) }),
    );
  } catch (err) {
    throw updateRejection(err);
  }
}

/** The results of the client calls the session's turn waits on (`toolResults`); resolves with what the turn does next. */
export async function sendToolResults(
  handle: ConversationHandle,
  results: ToolResultsArgs['results'],
  offer: ClientOffer | undefined,
  updateId?: string,
): Promise<TurnReply> {
  try {
    const r = await refusedWhenClosed(handle.workflow, 'toolResults', () =>
      handle.workflow.executeUpdate(toolResultsUpdate, { args: [{ results, ...offer }], ...(updateId ? { updateId } : {}) }),
    );
    // The request is told what its own part of the turn used.
    if (isPause(r)) return r;
    const { part, ...result } = r;
    return { ...result, ...part };
  } catch (err) {
    throw updateRejection(err);
  }
}

/** A rejected update (its validator) as the status a client understands; anything else unchanged. */
export function updateRejection(err: unknown): unknown {
  if (!(err instanceof WorkflowUpdateFailedError) || !err.cause) return err;
  const m = err.cause.message;
  if (/busyPolicy is reject/.test(m)) return conflict(`the session is busy: ${m}`, 'session_busy');
  // Client tools (client-tools.ts): a message while calls await results, results that do not fit, a name taken.
  if (/^the conversation awaits the results of tool calls/.test(m)) return conflict(m, 'tool_results_awaited');
  if (/^(unknown or repeated tool call ids|results missing for tool calls)/.test(m)) return badRequest('messages', m, 'invalid_tool_results');
  if (m === NOTHING_PENDING.toolResults)
    return conflict(`${m}: the session's turn does not wait for tool results (send a user message instead)`, 'no_tool_calls_awaited');
  if (/^(tools\[\d+\]|toolChoice):/.test(m)) return badRequest('tools', m, 'invalid_value');
  if (/has ended/.test(m))
    return conflict(`the session's conversation ${m.replace(/^the conversation /, '')}: send again to start it anew`, 'session_ended');
  if (/chat mode/.test(m)) return conflict(`not a chat session: ${m}`, 'not_a_chat');
  if (/pending/.test(m)) return conflict(m, 'nothing_pending');
  return badRequest(null, m, 'rejected');
}

/** The handle of an existing session's conversation (the principal's own); 404 when there is none. */
export async function existingSession(
  hermes: Hermes,
  sessionId: string,
  principal?: string,
): Promise<{ handle: ConversationHandle; running: boolean }> {
  const id = sessionWorkflowId(sessionId, principal);
  const s = await describeConversation(hermes, id);
  if (s === 'none') throw notFound(`no session "${sessionId}" (no conversation ${id})`, 'session_not_found');
  return { handle: hermes.get(id), running: s === 'running' };
}

// --- the human-in-the-loop actions, with their bodies checked here (400 naming the field).

export function interruptArgs(body: unknown): { reason?: string; message?: string } {
  const b = objectBody(body);
  for (const k of ['reason', 'message'] as const)
    if (b[k] !== undefined && typeof b[k] !== 'string') throw badRequest(k, `${k} must be a string`, 'invalid_type');
  return { ...(b.reason ? { reason: b.reason as string } : {}), ...(b.message ? { message: b.message as string } : {}) };
}

export function answerArgs(body: unknown): string {
  const b = objectBody(body);
  if (typeof b.text !== 'string' || !b.text.trim())
    throw badRequest('text', 'text is required: {"text": "your answer"}', 'missing_required_parameter');
  return b.text;
}

export function approveArgs(body: unknown): { callId: string; decision: 'approve' | 'deny'; remember: boolean; workflowId?: string } {
  const b = objectBody(body);
  if (typeof b.call_id !== 'string' || !b.call_id)
    throw badRequest('call_id', "call_id is required (the pending approval's call id: GET /v1/sessions/ID)", 'missing_required_parameter');
  const decision = b.decision ?? 'approve';
  if (decision !== 'approve' && decision !== 'deny') throw badRequest('decision', 'decision must be "approve" or "deny"', 'invalid_value');
  if (b.remember !== undefined && typeof b.remember !== 'boolean') throw badRequest('remember', 'remember must be a boolean', 'invalid_type');
  if (b.workflow_id !== undefined && typeof b.workflow_id !== 'string')
    throw badRequest('workflow_id', 'workflow_id must be a string', 'invalid_type');
  return { callId: b.call_id, decision, remember: b.remember === true, ...(b.workflow_id ? { workflowId: b.workflow_id as string } : {}) };
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest(null, 'the body must be a JSON object', 'invalid_json');
  return body as Record<string, unknown>;
}
