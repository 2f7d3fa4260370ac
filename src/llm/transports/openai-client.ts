// The openai client of the chat and responses transports. Temporal owns retries (maxRetries: 0); the fetch is
// bound to the profile's timeout (src/llm/http.ts).
import OpenAI, { APIUserAbortError } from 'openai';
import { Stream } from 'openai/streaming';
import { modelFetch } from '../http';
import type { ModelProfile } from '../profiles';

export function openAIClient(p: ModelProfile, env: NodeJS.ProcessEnv): OpenAI {
  return new OpenAI({
    baseURL: p.baseURL,
    // Local servers (Ollama, vLLM…) accept any key; a missing key for a real endpoint surfaces as 401.
    apiKey: env[p.apiKeyEnv] || 'not-set',
    maxRetries: 0,
    timeout: p.timeoutMs,
    fetch: modelFetch(p.timeoutMs),
  });
}

/**
 * The server-sent events of a streamed response, read by `read`; the activity's cancellation closes the stream. A
 * closed stream just ends (the SDK swallows the abort): what was read by then is not the reply, the call was cancelled.
 */
export async function sseEvents<E, T>(
  client: OpenAI,
  response: Response,
  signal: AbortSignal,
  read: (events: AsyncIterable<E>) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal.addEventListener('abort', abort, { once: true });
  try {
    const out = await read(Stream.fromSSEResponse<E>(response, controller, client)).catch((err: unknown) => {
      throw signal.aborted ? new APIUserAbortError() : err;
    });
    if (signal.aborted) throw new APIUserAbortError();
    return out;
  } finally {
    signal.removeEventListener('abort', abort);
  }
}
