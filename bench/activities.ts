// Activities of the reference workflows (bench/workflows.ts). They run on the bench worker together with the
// product's own activities (createActivities), so the naive loop uses the real tool activity.
import OpenAI from 'openai';
import type { ModelProfile } from '../src/llm/profiles';
import type { ChatMessage, ToolCall } from '../src/shared/wire';
import { toolDefinitions } from '../src/tools/registry';

export interface NaiveModelResult {
  message: { content: string | null; tool_calls?: ToolCall[] };
  usage: { promptTokens: number; completionTokens: number };
}

export function createBenchActivities(profile: ModelProfile) {
  const client = new OpenAI({ baseURL: profile.baseURL, apiKey: 'not-set', maxRetries: 0, timeout: profile.timeoutMs });

  return {
    async benchNoop(): Promise<void> {},

    async benchSleep(ms: number): Promise<void> {
      await new Promise((r) => setTimeout(r, ms));
    },

    /** The same model call as the product's, but the transcript arrives in the input. Lean result. */
    async naiveModel(input: { messages: ChatMessage[]; tools: string[] }): Promise<NaiveModelResult> {
      const res = await client.chat.completions.create({
        model: profile.model,
        messages: input.messages as OpenAI.Chat.ChatCompletionMessageParam[],
        tools: input.tools.length ? toolDefinitions(input.tools) : undefined,
        temperature: profile.temperature,
      });
      const m = res.choices[0]!.message;
      const toolCalls: ToolCall[] = (m.tool_calls ?? []).flatMap((tc) =>
        tc.type === 'function'
          ? [{ id: tc.id, type: 'function' as const, function: { name: tc.function.name, arguments: tc.function.arguments } }]
          : [],
      );
      return {
        message: { content: m.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        usage: { promptTokens: res.usage?.prompt_tokens ?? 0, completionTokens: res.usage?.completion_tokens ?? 0 },
      };
    },
  };
}
