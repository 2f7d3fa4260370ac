// A turn that waits for a person (a clarify question, a tool call's approval): said at once to a client that is
// not streamed, instead of holding its request open until it times out. The turn goes on waiting; the client
// answers or approves through the session's endpoints and reads the answer with `GET /v1/sessions/ID?wait=N`.
import type { ConversationHandle } from '../client';
import type { ConversationEvent } from '../shared/events';
import { followEvents } from './live';

export type Waiting = Extract<ConversationEvent, { type: 'waiting' }>;

/** How to answer the wait: the session's endpoint, or (a task, no session) the conversation's own instruction. */
export function howToAnswer(e: Waiting, sessionPath?: string): string {
  if (!sessionPath) return e.answerWith;
  return e.for === 'clarify'
    ? `POST ${sessionPath}/answer {"text": "…"}`
    : `POST ${sessionPath}/approve {"call_id": "${e.callId}", "decision": "approve"|"deny"}`;
}

/** What firstWait reads of a turn's stream (turn-stream.ts's TurnStream), without importing it back. */
export interface WaitWatcher {
  onEvent(e: ConversationEvent): unknown;
  readonly waiting: Waiting | undefined;
  readonly answered: boolean;
}

/**
 * The first wait of this request's turn, from its events; never resolves when the turn does not wait (or `signal`
 * aborts). A first look that fails is tried again (followEvents): a client whose turn waits for a person must be
 * told so, not left waiting for an answer that only the person can unblock.
 */
export async function firstWait(
  handle: ConversationHandle,
  cursor: number | undefined,
  shaper: WaitWatcher,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<Waiting> {
  await followEvents(handle, cursor, signal, log, (e) => {
    shaper.onEvent(e);
    return shaper.waiting !== undefined || shaper.answered;
  });
  return shaper.waiting ?? new Promise<never>(() => undefined);
}

/** The `chat.completion` fields of a turn that waits: the wait and how to answer it, as content and in `hermes`. */
export function waitingReply(e: Waiting, sessionPath?: string) {
  const how = howToAnswer(e, sessionPath);
  const then = sessionPath ? `; then GET ${sessionPath}?wait=60 for the answer` : '';
  return {
    content: `[waiting for ${e.for}] ${e.question}\n(${how}${then})`,
    hermes: { status: 'waiting' as const, waiting_for: e.for, call_id: e.callId, question: e.question, answer_with: how },
  };
}
