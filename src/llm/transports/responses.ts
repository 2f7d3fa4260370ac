// The OpenAI Responses API (POST {baseURL}/responses). The recorded context becomes input items: the leading
// system message the `instructions`, tool calls `function_call` items and their results `function_call_output`
// items paired by call_id. Reasoning items of a reply are read for the step's reasoning excerpt and never sent
// back, as with chat completions (src/llm/reasoning.ts). `store: false`: the workflow's history holds the
// conversation, nothing needs the server to keep it.
import type OpenAI from 'openai';
import type { AnswerFormat } from '../../shared/client-tools';
import type { ChatMessage } from '../../shared/wire';
import type { ModelProfile } from '../profiles';
import type { Definition } from '../text-mode';
import { openAIClient } from './openai-client';
import { responseFailure, responseOf } from './responses-stream';
import type { RawToolCall, Transport, TransportReply } from './types';

type InputItem = OpenAI.Responses.ResponseInputItem;

export function responsesTransport(p: ModelProfile, env: NodeJS.ProcessEnv): Transport {
  const client = openAIClient(p, env);
  return {
    async send({ messages, tools, toolChoice, answerFormat, signal, onProgress }) {
      const body = {
        model: p.model,
        ...inputOf(messages),
        ...(tools.length ? { tools: tools.map(functionTool) } : {}),
        ...(toolChoice
          ? { tool_choice: toolChoice === 'required' ? ('required' as const) : { type: 'function' as const, name: toolChoice.name } }
          : {}),
        ...(answerFormat ? { text: { format: textFormat(answerFormat) } } : {}),
        temperature: p.temperature,
        ...(p.maxTokens ? { max_output_tokens: p.maxTokens } : {}),
        store: false,
      };
      return replyOf(await responseOf(client, p.stream, body, signal, onProgress));
    },
  };
}

/** The messages as `instructions` and input items. */
export function inputOf(messages: ChatMessage[]): { instructions?: string; input: InputItem[] } {
  const [first, ...rest] = messages;
  const lead = first?.role === 'system' ? first.content : undefined;
  const input = (lead === undefined ? messages : rest).flatMap((m): InputItem[] => {
    switch (m.role) {
      case 'system':
      case 'user':
        return [{ role: m.role, content: m.content }];
      case 'assistant':
        return [
          ...(m.content ? [{ role: 'assistant' as const, content: m.content }] : []),
          ...(m.tool_calls ?? []).map((c) => ({
            type: 'function_call' as const,
            call_id: c.id,
            name: c.function.name,
            arguments: c.function.arguments,
          })),
        ];
      case 'tool':
        return [{ type: 'function_call_output', call_id: m.tool_call_id, output: m.content }];
    }
  });
  return { ...(lead ? { instructions: lead } : {}), input };
}

/** The client's answer format as the Responses API's `text.format`. */
function textFormat(f: AnswerFormat): OpenAI.Responses.ResponseFormatTextConfig {
  if (f.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', name: f.name, schema: f.schema, ...(f.strict !== undefined ? { strict: f.strict } : {}) };
}

/** `strict: false`: the API's default is strict, which refuses schemas with optional fields. */
function functionTool(d: Definition): OpenAI.Responses.FunctionTool {
  return {
    type: 'function',
    name: d.function.name,
    description: d.function.description,
    parameters: d.function.parameters as Record<string, unknown>,
    strict: false,
  };
}

function replyOf(res: OpenAI.Responses.Response): TransportReply {
  // A plain request can answer 200 with a failed response; a stream says so in an event (responses-stream.ts).
  if (res.status === 'failed') throw responseFailure(res.error?.code, res.error?.message ?? 'the response failed');
  const texts: string[] = [];
  const thoughts: string[] = [];
  const toolCalls: RawToolCall[] = [];
  for (const item of res.output ?? []) {
    if (item.type === 'message') {
      for (const part of item.content) if (part.type === 'output_text') texts.push(part.text);
    } else if (item.type === 'function_call') {
      toolCalls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
    } else if (item.type === 'reasoning') {
      thoughts.push(...item.summary.map((s) => s.text), ...(item.content ?? []).map((c) => c.text));
    }
  }
  const u = res.usage;
  return {
    id: res.id,
    model: res.model,
    finishReason: res.status === 'incomplete' ? (res.incomplete_details?.reason ?? 'incomplete') : res.status,
    content: texts.length ? texts.join('') : null,
    reasoning: thoughts.filter(Boolean).join('\n\n').trim(),
    toolCalls,
    ...(u
      ? {
          usage: {
            promptTokens: u.input_tokens,
            completionTokens: u.output_tokens,
            totalTokens: u.total_tokens,
            reasoningTokens: u.output_tokens_details?.reasoning_tokens,
            cachedTokens: u.input_tokens_details?.cached_tokens,
          },
        }
      : {}),
  };
}
