// Client tool calls as `hermes serve` speaks them: a turn that waits for the client's results (a ToolCallsPause,
// src/shared/client-tools.ts) answers with an assistant message carrying `tool_calls` and `finish_reason:
// "tool_calls"`, streamed as the OpenAI API streams them. A request without a session id runs as a one-off session
// of its own; the ids of the calls it hands out name that session (`hermes.<session>.<call id>`), so the next
// request — whichever `hermes serve` it reaches — finds the waiting conversation from its tool results alone.
import { randomBytes } from 'node:crypto';
import type { ToolCallsPause } from '../shared/client-tools';
import { badRequest } from './errors';
import type { ChunkDelta } from './turn-stream';

const ONE_OFF = /^hermes\.(tools-[a-z0-9]+)\.(.+)$/s;

/** A one-off session's id: never one a client picks (those are given in a header and are their own). */
export function oneOffSessionId(): string {
  return `tools-${BigInt(`0x${randomBytes(12).toString('hex')}`).toString(36)}`;
}

/** The id a client is given for a call: the model's own in a session, one naming the session in a one-off. */
export function clientCallId(id: string, oneOff: string | undefined): string {
  return oneOff ? `hermes.${oneOff}.${id}` : id;
}

/**
 * The session a request without a session id hands results back to, named by its calls' ids, and the results
 * with the model's own ids. A 400 when the ids were not handed out by a one-off session, or name two.
 */
export function oneOffResults(results: Array<{ callId: string; content: string }>): {
  sessionId: string;
  results: Array<{ callId: string; content: string }>;
} {
  const parsed = results.map((r) => {
    const m = ONE_OFF.exec(r.callId);
    if (!m)
      throw badRequest(
        'messages',
        `tool_call_id "${r.callId.slice(0, 80)}" is not one this server handed out to a request without a session id: ` +
          'send the tool results with the X-Hermes-Session-Id header of the session whose turn asked for them',
        'unknown_tool_call_id',
      );
    return { sessionId: m[1]!, callId: m[2]!, content: r.content };
  });
  const sessionId = parsed[0]!.sessionId;
  if (parsed.some((p) => p.sessionId !== sessionId))
    throw badRequest('messages', 'the tool results answer calls of two different requests: send each turn its own results', 'invalid_tool_results');
  return { sessionId, results: parsed.map(({ callId, content }) => ({ callId, content })) };
}

/** The assistant message of a pause, as a `chat.completion` has it. */
export function pauseMessage(p: ToolCallsPause, oneOff: string | undefined) {
  return {
    role: 'assistant' as const,
    content: p.text?.trim() ? p.text : null,
    refusal: null,
    tool_calls: p.toolCalls.map((k) => ({
      id: clientCallId(k.id, oneOff),
      type: 'function' as const,
      function: { name: k.name, arguments: k.arguments },
    })),
  };
}

/** Arguments are streamed in pieces of this many characters, as an endpoint streams them. */
const ARGUMENT_PIECE = 64;

/**
 * The deltas of a pause as the OpenAI API streams tool calls: per call one delta with its index, id, type, name
 * and empty arguments, then the arguments in pieces (index only).
 */
export function pauseDeltas(p: ToolCallsPause, oneOff: string | undefined): ChunkDelta[] {
  return p.toolCalls.flatMap((k, index) => {
    const pieces: ChunkDelta[] = [
      { tool_calls: [{ index, id: clientCallId(k.id, oneOff), type: 'function', function: { name: k.name, arguments: '' } }] },
    ];
    for (let at = 0; at < k.arguments.length; at += ARGUMENT_PIECE)
      pieces.push({ tool_calls: [{ index, function: { arguments: k.arguments.slice(at, at + ARGUMENT_PIECE) } }] });
    return pieces;
  });
}
