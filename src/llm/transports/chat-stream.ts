// A chat completion asked for as a stream (`stream: true`, usage in the last chunk), put back together into the
// one ChatCompletion the chat transport reads (chat.ts), while `onProgress` sees the reply so far — the model
// activity puts that in its heartbeat details, where watchers read it (src/shared/events.ts). Nothing of the
// stream is recorded: the activity's result is the same one result per step as without streaming.
// A server that answers a stream request with plain JSON (some ignore `stream`) is read as plain JSON; one that
// rejects the stream parameters is asked again without them, and this worker remembers not to stream to it.
import OpenAI from 'openai';
import { sseEvents } from './openai-client';
import type { PartialReply } from './types';

type Body = Omit<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, 'stream'>;

/** Profiles whose endpoint refused a stream request: asked plainly from then on (per worker). */
const refused = new Set<string>();

export async function completion(
  client: OpenAI,
  profileName: string,
  wantStream: boolean,
  body: Body,
  signal: AbortSignal,
  onProgress: (p: PartialReply) => void,
): Promise<OpenAI.Chat.ChatCompletion> {
  if (!wantStream || refused.has(profileName)) return client.chat.completions.create(body, { signal });
  let response: Response;
  try {
    response = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal }).asResponse();
  } catch (err) {
    if (signal.aborted || !rejectsStreaming(err)) throw err;
    refused.add(profileName);
    return client.chat.completions.create(body, { signal });
  }
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream')) return (await response.json()) as OpenAI.Chat.ChatCompletion;
  return sseEvents<OpenAI.Chat.ChatCompletionChunk, OpenAI.Chat.ChatCompletion>(client, response, signal, (chunks) => assemble(chunks, onProgress));
}

/** A 400/422 that names the stream parameters: the server cannot stream (or does not know stream_options). */
function rejectsStreaming(err: unknown): boolean {
  const e = err as { status?: number; message?: string };
  return (e.status === 400 || e.status === 422) && /stream/i.test(e.message ?? '');
}

/** Reads the chunks into one ChatCompletion; `onProgress` after each chunk that added something. */
export async function assemble(
  chunks: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>,
  onProgress: (p: PartialReply) => void,
): Promise<OpenAI.Chat.ChatCompletion> {
  const p: PartialReply = { content: '', reasoning: '', toolCalls: [] };
  let id = '';
  let model = '';
  let created = 0;
  let finish: OpenAI.Chat.ChatCompletion.Choice['finish_reason'] | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  let sawContent = false;
  for await (const chunk of chunks) {
    id ||= chunk.id;
    model ||= chunk.model;
    created ||= chunk.created;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.finish_reason) finish = choice.finish_reason;
    const d = choice.delta as (typeof choice.delta & { reasoning_content?: string | null; reasoning?: string | null }) | undefined;
    if (!d) continue;
    let changed = false;
    if (typeof d.content === 'string' && d.content) {
      p.content += d.content;
      sawContent = true;
      changed = true;
    }
    const thinking = d.reasoning_content ?? d.reasoning;
    if (typeof thinking === 'string' && thinking) {
      p.reasoning += thinking;
      changed = true;
    }
    for (const tc of d.tool_calls ?? []) {
      const index = typeof tc.index === 'number' ? tc.index : p.toolCalls.length;
      let call = p.toolCalls.find((c) => c.index === index);
      if (!call) {
        call = { index, name: '', arguments: '' };
        p.toolCalls.push(call);
      }
      if (tc.id) call.id = tc.id;
      // The name comes once (OpenAI, vLLM, llama.cpp); a server that repeats it whole in every delta must not double it.
      if (tc.function?.name && call.name !== tc.function.name) call.name += tc.function.name;
      if (tc.function?.arguments) call.arguments += tc.function.arguments;
      changed = true;
    }
    if (changed) onProgress(p);
  }
  const message: OpenAI.Chat.ChatCompletionMessage & { reasoning_content?: string } = {
    role: 'assistant',
    content: sawContent ? p.content : null,
    refusal: null,
    ...(p.toolCalls.length
      ? {
          tool_calls: p.toolCalls.map((c) => ({
            id: c.id ?? '',
            type: 'function' as const,
            function: { name: c.name, arguments: c.arguments },
          })),
        }
      : {}),
    ...(p.reasoning ? { reasoning_content: p.reasoning } : {}),
  };
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    // A stream that ended without a single choice is a reply with no choices, as a plain reply would be.
    choices:
      finish === null && !sawContent && !p.toolCalls.length && !p.reasoning
        ? []
        : [{ index: 0, message, finish_reason: finish ?? 'stop', logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}
