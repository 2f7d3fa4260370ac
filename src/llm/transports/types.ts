// The seam between the model activity and the wire protocols a profile can speak (its `transport`). A transport
// turns the recorded context — ChatMessage[], the one shape histories hold whatever the transport — and the tool
// definitions into its request, and its reply, streamed or not, into a TransportReply. What the activity does
// with the reply (tool-call modes, usage and cost, redaction, heartbeats, failures, fallbacks) never sees a wire
// format, so the recorded step is the same lean ModelCallResult on every transport.
import type { ChatMessage } from '../../shared/wire';
import type { Definition } from '../text-mode';
import type { AnswerFormat, ClientToolChoice } from '../../shared/client-tools';
import type { stepFormat } from '../constrained';

/** The reply so far while the endpoint streams (the activity's heartbeat details show it to watchers). */
export interface PartialReply {
  content: string;
  reasoning: string;
  toolCalls: Array<{ index: number; id?: string; name: string; arguments: string }>;
}

/** A tool call as the endpoint sent it: servers differ, the activity normalises (src/activities/model.ts). */
export interface RawToolCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

export interface TransportReply {
  id?: string;
  model?: string;
  finishReason?: string | null;
  /** The reply's text (thinking written into it as <think>…</think> still there), null when it has none. */
  content: string | null;
  /** Thinking the endpoint sent apart from the text: a field, reasoning items, thinking blocks. Never sent back. */
  reasoning: string;
  toolCalls: RawToolCall[];
  usage?: {
    /** All prompt tokens, cached ones included. */
    promptTokens?: number;
    completionTokens?: number;
    totalTokens?: number;
    reasoningTokens?: number;
    cachedTokens?: number;
  };
}

export interface TransportCall {
  messages: ChatMessage[];
  /** Sent as the request's tools; empty: none. */
  tools: Definition[];
  /** A constrained step's response_format (chat completions only). */
  responseFormat?: ReturnType<typeof stepFormat>;
  /** The client's tool choice (`hermes serve`): a tool must be called, or that one. */
  toolChoice?: ClientToolChoice;
  /** The client's answer format (`hermes serve`), where the protocol can ask for one (not Anthropic Messages). */
  answerFormat?: AnswerFormat;
  signal: AbortSignal;
  onProgress: (p: PartialReply) => void;
}

export interface Transport {
  send(call: TransportCall): Promise<TransportReply>;
}
