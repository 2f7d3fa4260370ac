// The HTTP client under the openai SDK for model calls. Node's built-in fetch (undici) gives up on a response
// whose headers have not arrived within 300 s (headersTimeout) and on a body silent for 300 s (bodyTimeout),
// whatever timeout the SDK was given. A non-streaming chat completion sends its headers only when the reply is
// complete, so on a slow local model every call past 300 s failed as "timed out" even with
// HERMES_MODEL_TIMEOUT=600 (seen with Qwen2.5-Coder-1.5B on 2 busy cores). Here the profile's timeout is the
// only limit: undici's own are set just past it, so the SDK's timeout (with its clear error) fires first.
import { Agent, fetch as undiciFetch } from 'undici';

/** Margin past the profile's timeout for undici's own limits, so the SDK's timeout is the one that fires. */
const MARGIN_MS = 5_000;

export function modelDispatcherOptions(timeoutMs: number): { headersTimeout: number; bodyTimeout: number } {
  return { headersTimeout: timeoutMs + MARGIN_MS, bodyTimeout: timeoutMs + MARGIN_MS };
}

/** A fetch for the openai client whose connection limits follow the model profile's timeout. */
export function modelFetch(timeoutMs: number): typeof fetch {
  const dispatcher = new Agent(modelDispatcherOptions(timeoutMs));
  return ((url: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) =>
    undiciFetch(url as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as typeof fetch;
}
