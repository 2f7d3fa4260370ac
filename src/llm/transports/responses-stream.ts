// A Responses API call asked for as a stream: its semantic events (response.output_text.delta,
// response.function_call_arguments.delta, the reasoning deltas…) feed `onProgress`, and the final
// response.completed (or response.incomplete) event carries the whole response, read as a plain reply would be.
// response.failed and error events become the API error their code stands for, so they are classified as the same
// failure a plain request would have given. Nothing of the stream is recorded.
import OpenAI, { APIError } from 'openai';
import { sseEvents } from './openai-client';
import type { PartialReply } from './types';

type Body = Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'>;

export async function responseOf(
  client: OpenAI,
  stream: boolean,
  body: Body,
  signal: AbortSignal,
  onProgress: (p: PartialReply) => void,
): Promise<OpenAI.Responses.Response> {
  if (!stream) return client.responses.create(body, { signal });
  const response = await client.responses.create({ ...body, stream: true }, { signal }).asResponse();
  // A server that ignores `stream` answers with the plain response.
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return (await response.json()) as OpenAI.Responses.Response;
  return sseEvents<OpenAI.Responses.ResponseStreamEvent, OpenAI.Responses.Response>(client, response, signal, (events) =>
    assembleResponse(events, onProgress),
  );
}

/** Reads the events up to the final response; `onProgress` after each event that added to the reply. */
export async function assembleResponse(
  events: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>,
  onProgress: (p: PartialReply) => void,
): Promise<OpenAI.Responses.Response> {
  const p: PartialReply = { content: '', reasoning: '', toolCalls: [] };
  for await (const e of events) {
    switch (e.type) {
      case 'response.output_text.delta':
        p.content += e.delta;
        break;
      case 'response.reasoning_text.delta':
      case 'response.reasoning_summary_text.delta':
        p.reasoning += e.delta;
        break;
      case 'response.output_item.added':
        if (e.item.type !== 'function_call') continue;
        p.toolCalls.push({ index: e.output_index, id: e.item.call_id, name: e.item.name, arguments: e.item.arguments ?? '' });
        break;
      case 'response.function_call_arguments.delta': {
        const call = p.toolCalls.find((c) => c.index === e.output_index);
        if (!call) continue;
        call.arguments += e.delta;
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
        return e.response;
      case 'response.failed':
        throw responseFailure(e.response.error?.code, e.response.error?.message ?? 'the response failed');
      case 'error':
        throw responseFailure(e.code, e.message);
      default:
        continue;
    }
    onProgress(p);
  }
  throw responseFailure(null, 'the stream ended before response.completed');
}

/** HTTP status of the Responses API's error codes; other codes name something wrong with the request. */
const STATUS_OF_CODE: Record<string, number> = {
  server_error: 500,
  vector_store_timeout: 500,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
};

/** A failed response (or an error event) as the API error a request failing with its code would be. */
export function responseFailure(code: string | null | undefined, message: string): APIError {
  const status = code ? (STATUS_OF_CODE[code] ?? 400) : 500;
  return APIError.generate(status, { error: { message, code: code ?? null } }, message, new Headers());
}
