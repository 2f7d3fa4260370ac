// `GET /v1/sessions/ID`: a session's state and its last finished turn, and whether a turn is still under way.
// A turn is under way while the conversation runs or waits on a step, while a message this server sent has no
// answer yet (the workflow may not have received it: its state still shows the turn before), and while the
// state counts a turn whose result is not in the history yet. `last_turn` is then the turn before, and
// `turn_in_progress` says so: a reconnecting client never takes an older answer for its own.
import { decodeStoredValue } from '../storage/decode';
import type { Payload } from '@temporalio/common';
import type { ConversationHandle, Hermes } from '../client';
import type { ConversationState, TurnResult } from '../shared/contract';
import { existingSession } from './sessions';
import { isPause, type ToolCallsPause } from '../shared/client-tools';

/** The session turns this server has sent and not yet seen answered. */
export class TurnsInFlight {
  private readonly counts = new Map<string, number>();

  /** Counts a turn of the session from now; the returned function ends it (once). */
  begin(sessionId: string): () => void {
    this.counts.set(sessionId, (this.counts.get(sessionId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const n = (this.counts.get(sessionId) ?? 1) - 1;
      if (n > 0) this.counts.set(sessionId, n);
      else this.counts.delete(sessionId);
    };
  }

  has(sessionId: string): boolean {
    return this.counts.has(sessionId);
  }
}

export interface SessionView {
  id: string;
  object: 'hermes.session';
  conversation_id: string;
  /** The workflow's status on the server: RUNNING, COMPLETED, FAILED… */
  temporal_status: string;
  /** The conversation's live state (the `state` query); null when no worker answers it. */
  state: ConversationState | null;
  /** True while a turn is under way (also while it waits for an answer or approval): `last_turn` is the one before it. */
  turn_in_progress: boolean;
  /** The latest finished turn: its answer, status and usage. Null before the first turn ends. */
  last_turn: TurnResult | null;
}

/** The in-flight key of a session: its id, under its principal's name when there are principals (ids repeat across them). */
export const inFlightKey = (sessionId: string, principal?: string): string => (principal ? `${principal}/${sessionId}` : sessionId);

export async function sessionView(hermes: Hermes, sessionId: string, inFlight?: TurnsInFlight, principal?: string): Promise<SessionView> {
  const { handle } = await existingSession(hermes, sessionId, principal);
  // Whether this server has a turn out is read first: a turn that ends meanwhile is then in the history read after.
  const sent = inFlight?.has(inFlightKey(sessionId, principal)) === true;
  const [status, state, recorded] = await Promise.all([
    handle.temporalStatus(),
    handle.state().catch(() => null),
    lastTurn(handle).catch(
      (e: unknown) => (process.stderr.write(`hermes serve: the last turn of ${handle.id} could not be read from its history: ${String(e)}\n`), null),
    ),
  ]);
  // A turn no update returned (it ended while its client tool calls waited: an interrupt, the timeout) is only in the state.
  const last = state?.lastTurn && state.lastTurn.turn > (recorded?.turn ?? 0) ? state.lastTurn : recorded;
  const running = status === 'RUNNING';
  const inProgress =
    running &&
    (sent ||
      !state ||
      state.status === 'running' ||
      state.waitingFor === 'clarify' ||
      state.waitingFor === 'approval' ||
      state.turn > (last?.turn ?? 0));
  return {
    id: sessionId,
    object: 'hermes.session',
    conversation_id: handle.id,
    temporal_status: status,
    state,
    turn_in_progress: inProgress,
    last_turn: last,
  };
}

/**
 * Waits (polling) up to `seconds` until no turn is under way, or the turn waits for a person (an answer, an
 * approval, client tool results: nothing changes until someone gives it, and the state says what is pending); then the view.
 */
export async function sessionViewWhenIdle(
  hermes: Hermes,
  sessionId: string,
  seconds: number,
  inFlight?: TurnsInFlight,
  signal?: AbortSignal,
  principal?: string,
): Promise<SessionView> {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const v = await sessionView(hermes, sessionId, inFlight, principal);
    // Also the client's tool results: nothing changes until the client sends them.
    const waitsForPerson = v.state?.waitingFor === 'clarify' || v.state?.waitingFor === 'approval' || v.state?.waitingFor === 'tool_results';
    if (!v.turn_in_progress || waitsForPerson || Date.now() >= end || signal?.aborted) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Runs looked at, newest first, for the last turn: a chat continues-as-new between turns, so it is in the run before. */
const MAX_RUNS = 3;

/**
 * The latest turn that completed — the result of a `send`, or of the `toolResults` that let it finish (a pause,
 * which hands client calls back, is no finished turn) — from the history of the current run (or the runs before it, when the chat
 * continued-as-new since): the update's result is recorded there, so it is there after any crash and with no
 * worker running. Null before the first turn ends.
 */
export async function lastTurn(handle: ConversationHandle): Promise<TurnResult | null> {
  const client = handle.workflow.client;
  let runId: string | undefined;
  for (let i = 0; i < MAX_RUNS; i++) {
    const history = await client.getHandle(handle.id, runId).fetchHistory();
    for (const p of turnReplies(history.events ?? []).reverse()) {
      const r = await decodeStoredValue<TurnResult | ToolCallsPause>(client.options.loadedDataConverter, p);
      if (!r) return null;
      if (isPause(r)) continue;
      const { part: _part, ...turn } = r as TurnResult & { part?: unknown };
      return turn;
    }
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) return null;
  }
  return null;
}

type HistoryEvent = NonNullable<Awaited<ReturnType<ConversationHandle['workflow']['fetchHistory']>>['events']>[number];

/** The results of the completed `send` and `toolResults` updates, in history order. */
function turnReplies(events: HistoryEvent[]): Payload[] {
  const sends = new Set<string>();
  const out: Payload[] = [];
  for (const e of events) {
    const accepted = e.workflowExecutionUpdateAcceptedEventAttributes;
    const name = accepted?.acceptedRequest?.input?.name;
    if ((name === 'send' || name === 'toolResults') && accepted?.acceptedRequest?.meta?.updateId) sends.add(accepted.acceptedRequest.meta.updateId);
    const completed = e.workflowExecutionUpdateCompletedEventAttributes;
    const id = completed?.meta?.updateId;
    const p = completed?.outcome?.success?.payloads?.[0];
    if (id && sends.has(id) && p) out.push(p as Payload);
  }
  return out;
}
