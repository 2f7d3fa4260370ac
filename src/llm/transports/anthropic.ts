// Anthropic Messages (POST {baseURL}/v1/messages) through the official SDK, which sends the anthropic-version
// header and the key. `max_tokens` is required: the profile's maxTokens, else DEFAULT_MAX_TOKENS. No `temperature`:
// the SDK's API version (2026-10-21) refuses every sampling parameter. Thinking is asked off (`thinking: disabled`):
// with thinking on, the API wants a tool-using assistant turn sent back with its thinking blocks, and histories
// keep thinking out of the context (src/llm/reasoning.ts); thinking blocks a server sends anyway become the step's
// reasoning excerpt, never context.
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicLoaded } from '../errors';
import { modelFetch } from '../http';
import type { ModelProfile } from '../profiles';
import { requestOf } from './anthropic-request';
import type { PartialReply, RawToolCall, Transport, TransportReply } from './types';

/** max_tokens of a profile that sets no maxTokens (the default profile's cap). */
export const DEFAULT_MAX_TOKENS = 4_096;

export function anthropicTransport(p: ModelProfile, env: NodeJS.ProcessEnv): Transport {
  // Loaded when a profile speaks Anthropic, not with every worker: ~200 ms of CPU at each start otherwise.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const sdk = require('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk');
  anthropicLoaded(sdk);
  const client = new sdk.default({
    // The SDK appends /v1/messages; a base URL written the OpenAI way (ending in /v1) must not double it.
    baseURL: p.baseURL.replace(/\/v1\/?$/, ''),
    // As on the other transports a missing key is the server's 401, not the SDK's own search for credentials.
    apiKey: env[p.apiKeyEnv] || 'not-set',
    maxRetries: 0,
    timeout: p.timeoutMs,
    fetch: modelFetch(p.timeoutMs),
    // The activity's own span covers the call, redacted (src/observe/step.ts); the SDK's would not be.
    openTelemetry: false,
  });
  return {
    // No answer format: the Messages API has none; the workflow checks the answer and asks once more instead.
    async send({ messages, tools, toolChoice, signal, onProgress }) {
      const body = {
        model: p.model,
        max_tokens: p.maxTokens ?? DEFAULT_MAX_TOKENS,
        ...requestOf(messages, tools),
        ...(toolChoice
          ? { tool_choice: toolChoice === 'required' ? { type: 'any' as const } : { type: 'tool' as const, name: toolChoice.name } }
          : {}),
        thinking: { type: 'disabled' as const },
      };
      if (!p.stream) return replyOf(await client.messages.create(body, { signal }));
      const stream = client.messages.stream(body, { signal });
      const partial: PartialReply = { content: '', reasoning: '', toolCalls: [] };
      for await (const e of stream) if (progressed(partial, e)) onProgress(partial);
      return replyOf(await stream.finalMessage());
    },
  };
}

/** Adds a stream event to the reply so far; whether it added anything. */
function progressed(p: PartialReply, e: Anthropic.MessageStreamEvent): boolean {
  if (e.type === 'content_block_start' && e.content_block.type === 'tool_use') {
    p.toolCalls.push({ index: e.index, id: e.content_block.id, name: e.content_block.name, arguments: '' });
    return true;
  }
  if (e.type !== 'content_block_delta') return false;
  const d = e.delta;
  if (d.type === 'text_delta') p.content += d.text;
  else if (d.type === 'thinking_delta') p.reasoning += d.thinking;
  else if (d.type === 'input_json_delta') {
    const call = p.toolCalls.find((c) => c.index === e.index);
    if (!call) return false;
    call.arguments += d.partial_json;
  } else return false;
  return true;
}

function replyOf(m: Anthropic.Message): TransportReply {
  const texts: string[] = [];
  const thoughts: string[] = [];
  const toolCalls: RawToolCall[] = [];
  for (const b of m.content) {
    if (b.type === 'text') texts.push(b.text);
    else if (b.type === 'thinking') thoughts.push(b.thinking);
    else if (b.type === 'tool_use')
      toolCalls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
  }
  const u = m.usage;
  const cached = u.cache_read_input_tokens ?? 0;
  // input_tokens counts only what came after the last cache breakpoint: the prompt is all three.
  const prompt = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + cached;
  return {
    id: m.id,
    model: m.model,
    finishReason: m.stop_reason,
    content: texts.length ? texts.join('') : null,
    reasoning: thoughts.filter(Boolean).join('\n\n').trim(),
    toolCalls,
    usage: {
      promptTokens: prompt,
      completionTokens: u.output_tokens,
      totalTokens: prompt + u.output_tokens,
      reasoningTokens: u.output_tokens_details?.thinking_tokens,
      cachedTokens: cached,
    },
  };
}
