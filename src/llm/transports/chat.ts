// Chat completions (POST {baseURL}/chat/completions): OpenAI and every OpenAI-compatible server. The only transport
// with text and constrained tool-call modes (the activity rewrites the messages for them; src/llm/text-mode.ts,
// src/llm/constrained.ts), since the small local models those modes are for are served this way.
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import { FailureType } from '../../shared/errors';
import type { ModelProfile } from '../profiles';
import { reasoningField } from '../reasoning';
import { completion } from './chat-stream';
import { openAIClient } from './openai-client';
import type { Transport, TransportReply } from './types';
import type { AnswerFormat } from '../../shared/client-tools';

export function chatTransport(p: ModelProfile, env: NodeJS.ProcessEnv): Transport {
  const client = openAIClient(p, env);
  return {
    async send({ messages, tools, responseFormat, toolChoice, answerFormat, signal, onProgress }) {
      const format = responseFormat ?? (answerFormat ? chatFormat(answerFormat) : undefined);
      const res = await completion(
        client,
        p.name,
        p.stream,
        {
          model: p.model,
          messages: messages as OpenAI.Chat.ChatCompletionMessageParam[],
          tools: tools.length ? tools : undefined,
          ...(toolChoice
            ? { tool_choice: toolChoice === 'required' ? ('required' as const) : { type: 'function' as const, function: toolChoice } }
            : {}),
          ...(format ? { response_format: format } : {}),
          temperature: p.temperature,
          ...(p.maxTokens ? { max_tokens: p.maxTokens } : {}),
        },
        signal,
        onProgress,
      );
      return fromCompletion(res);
    },
  };
}

/** The client's answer format as chat completions' `response_format`. */
function chatFormat(f: AnswerFormat): OpenAI.ResponseFormatJSONObject | OpenAI.ResponseFormatJSONSchema {
  if (f.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', json_schema: { name: f.name, schema: f.schema, ...(f.strict !== undefined ? { strict: f.strict } : {}) } };
}

function fromCompletion(res: OpenAI.Chat.ChatCompletion): TransportReply {
  const choice = res.choices?.[0];
  if (!choice) {
    throw ApplicationFailure.retryable('model response has no choices', FailureType.ModelUnavailable);
  }
  const u = res.usage;
  return {
    id: res.id,
    model: res.model,
    finishReason: choice.finish_reason,
    content: textOf(choice.message?.content),
    reasoning: reasoningField(choice.message),
    toolCalls: choice.message?.tool_calls ?? [],
    ...(u
      ? {
          usage: {
            promptTokens: u.prompt_tokens,
            completionTokens: u.completion_tokens,
            totalTokens: u.total_tokens,
            // Reported by OpenAI, DeepSeek, OpenRouter, vLLM.
            reasoningTokens: u.completion_tokens_details?.reasoning_tokens,
            cachedTokens: u.prompt_tokens_details?.cached_tokens,
          },
        }
      : {}),
  };
}

/** Text content; some servers send an array of text parts instead of a string. */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = (content as unknown[]).map(partText).filter(Boolean);
    return parts.length ? parts.join('') : null;
  }
  return null;
}

function partText(p: unknown): string {
  if (typeof p === 'string') return p;
  const text = (p as { text?: unknown } | null | undefined)?.text;
  return typeof text === 'string' ? text : '';
}
