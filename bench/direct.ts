// The throughput scenario's lower bound without any orchestration: the same conversations as one in-process
// loop per conversation — the real openai client over HTTP to the same scripted mock (same latency, same tool
// schemas, the transcript in memory) and the real read_file handler — no Temporal, no durability. Whatever
// this costs on the machine, no durable loop can beat it.
import OpenAI from 'openai';
import { readFile } from '../src/tools/read_file/handler';
import { toolDefinitions } from '../src/tools/registry';
import { builtSystemPrompt } from '../src/shared/system-prompt';
import { uid, type Harness } from './harness';

export async function runDirect(h: Harness, client: OpenAI, n: number, delayMs: number): Promise<void> {
  const id = uid('direct');
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: builtSystemPrompt({ tools: h.tools }, { date: '2026-01-01', workspace: '.' }) },
    { role: 'user', content: `bench|tiny|${n}|${delayMs}|${id}` },
  ];
  const tools = toolDefinitions(h.tools) as OpenAI.Chat.ChatCompletionTool[];
  const signal = new AbortController().signal;
  for (;;) {
    const res = await client.chat.completions.create({ model: 'mock-model', messages, tools });
    const m = res.choices[0]!.message;
    messages.push(m);
    const toolCalls = (m.tool_calls ?? []).filter((t) => t.type === 'function');
    if (toolCalls.length === 0) break;
    for (const tc of toolCalls) {
      const args = JSON.parse(tc.function.arguments) as { path: string; offset?: number; limit?: number };
      const content = await readFile(args, {
        workspace: h.workspace,
        signal,
        heartbeat: () => undefined,
        terminalTimeoutSec: 60,
        callId: tc.id,
        processDir: h.workspace,
      });
      messages.push({ role: 'tool', tool_call_id: tc.id, content });
    }
  }
}

/** C conversations at once; the openai client is shared, as a worker's is. */
export async function scenarioDirect(h: Harness, C: number, N: number, delayMs: number) {
  const client = new OpenAI({ baseURL: h.profiles.profiles.default!.baseURL, apiKey: 'not-set', maxRetries: 0 });
  await Promise.all(Array.from({ length: 10 }, () => runDirect(h, client, 3, delayMs))); // warm-up
  const t0 = performance.now();
  await Promise.all(Array.from({ length: C }, () => runDirect(h, client, N, delayMs)));
  return performance.now() - t0;
}
