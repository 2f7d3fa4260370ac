// The live events of a conversation: what `handle.events()`, `hermes watch`, `hermes run`'s streamed display and
// `hermes serve` show while it runs. Two sources, neither recorded in the history:
// - step events, kept by the workflow in a bounded log with offsets that keep counting across continue-as-new
//   (src/workflows/state/event-log.ts), read with the `events` query (a query is not recorded);
// - the text of the model call in flight, which the model activity puts in its heartbeat details while the
//   endpoint streams (src/llm/transports/chat-stream.ts); the server keeps only the latest heartbeat of an attempt,
//   outside the history, and DescribeWorkflowExecution hands it to any client. The client turns successive
//   heartbeats into `delta` events (src/events/client.ts).
// The history still holds one result per step.
import type { RunStatus, Usage } from './contract';

/** What every event names: the conversation, its run, and where it is. */
export interface EventBase {
  conversationId: string;
  runId: string;
  /** Offset of the step event (every step event has one; a `delta` carries the offset of the last step event before it). */
  offset: number;
  /** Workflow time (ms since epoch) for step events; the client's clock for deltas. */
  at: number;
  turn?: number;
  /** The model step (numbered as `hermes inspect --step` numbers them). */
  step?: number;
}

export type StepEvent =
  | { type: 'turn.started'; text: string }
  | { type: 'model.started'; model: string }
  | {
      type: 'model.finished';
      model: string;
      kind: 'answer' | 'tools' | 'empty' | 'unreadable' | 'failed';
      usage?: Usage;
      toolCalls?: number;
      /** The reply's text as recorded (the streamed text ends as exactly this). */
      text?: string;
      error?: string;
    }
  | { type: 'tool.started'; callId: string; name: string; summary: string }
  | {
      type: 'tool.finished';
      callId: string;
      name: string;
      summary: string;
      outcome: 'ok' | 'error' | 'refused' | 'cut' | 'invalid';
      durationMs: number;
    }
  /** `tool_results`: the client's tool calls (callId: their ids, comma-separated), answered by its next request. */
  | { type: 'waiting'; for: 'clarify' | 'approval' | 'tool_results'; callId: string; question: string; answerWith: string }
  | { type: 'interrupted'; reason: string }
  | { type: 'compressed'; before: number; after: number }
  | { type: 'answer'; text: string; status: RunStatus }
  | { type: 'status'; status: RunStatus; reason?: string; error?: string }
  /** The run goes on as a new run (continue-as-new); the offsets go on counting. */
  | { type: 'continued' };

/** Made by the client from the model activity's heartbeats: never in the workflow's log. */
export type LiveEvent =
  /** More text of model step `step`, attempt `attempt`: `channel` answer (the reply) or reasoning (thinking). */
  | { type: 'delta'; attempt: number; channel: 'answer' | 'reasoning'; text: string }
  /** A tool call the model is writing: its name and arguments so far. */
  | { type: 'tool_call.forming'; attempt: number; index: number; name: string; arguments: string }
  /** The text of this step so far is `text` (not a continuation of what was sent: e.g. a secret redacted once complete). */
  | { type: 'text.replaced'; attempt: number; channel: 'answer' | 'reasoning'; text: string }
  /** Attempt `attempt` restarts model step `step`: drop the text of the earlier attempt. */
  | { type: 'attempt.restarted'; attempt: number; reason?: string }
  /** The subscriber fell behind the kept log (or joined late): `missed` step events are not shown. */
  | { type: 'gap'; missed: number };

export type ConversationEvent = EventBase & (StepEvent | LiveEvent);
export type StepEventRecord = EventBase & StepEvent;

export interface EventsQueryArgs {
  /** Return the events at this offset and after. */
  from?: number;
}
export interface EventsPage {
  events: StepEventRecord[];
  /** Where to ask from next: after the last event returned (a page holds at most 100), else the next offset. */
  next: number;
  /** Offset of the oldest event still kept (older ones are gone). */
  first: number;
  /** A model call is in flight: its step (the client then reads its live text from the heartbeats). */
  modelInFlight?: { step: number; activityId?: string };
  /** Run status when the query ran. */
  status: RunStatus;
}

/** What the model activity heartbeats while the endpoint streams: the reply so far (redacted, capped). */
export interface LiveReply {
  attempt: number;
  step: number;
  content: string;
  reasoning: string;
  toolCalls: Array<{ index: number; name: string; arguments: string }>;
}
