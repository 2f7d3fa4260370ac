// Reassembling a streamed chat completion (src/llm/transports/chat-stream.ts) the way servers send it: content word by
// word, a tool call's arguments in pieces under one index, usage in a last chunk without choices.
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { assemble } from '../src/llm/transports/chat-stream';
import type { PartialReply } from '../src/llm/transports/types';

type Chunk = OpenAI.Chat.ChatCompletionChunk;
const base = { id: 'c1', object: 'chat.completion.chunk' as const, created: 1, model: 'm' };
const delta = (d: Record<string, unknown>, finish: string | null = null): Chunk =>
  ({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] }) as unknown as Chunk;
async function* from(chunks: Chunk[]) {
  for (const c of chunks) yield c;
}

describe('assemble', () => {
  it('joins content and reasoning, and reports progress after each piece', async () => {
    const seen: string[] = [];
    const r = await assemble(
      from([
        delta({ role: 'assistant', content: '' }),
        delta({ reasoning_content: 'think ' }),
        delta({ content: 'Hello ' }),
        delta({ content: 'world' }, 'stop'),
      ]),
      (p: PartialReply) => seen.push(p.content),
    );
    expect(r.choices[0]!.message.content).toBe('Hello world');
    expect((r.choices[0]!.message as { reasoning_content?: string }).reasoning_content).toBe('think ');
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(seen).toEqual(['', 'Hello ', 'Hello world']);
  });

  it('puts a tool call together from pieces (name once, arguments split), also when a server repeats the name', async () => {
    const r = await assemble(
      from([
        delta({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"path": "no' } }] }),
        delta({ tool_calls: [{ index: 0, function: { name: 'read_file', arguments: 'tes.txt"}' } }] }),
        delta({ tool_calls: [{ index: 1, id: 'call_2', function: { name: 'list_dir', arguments: '{}' } }] }, 'tool_calls'),
        { ...base, choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } } as Chunk,
      ]),
      () => undefined,
    );
    const m = r.choices[0]!.message;
    expect(m.content).toBeNull();
    expect(m.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path": "notes.txt"}' } },
      { id: 'call_2', type: 'function', function: { name: 'list_dir', arguments: '{}' } },
    ]);
    expect(r.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  });

  it('a stream without a single choice is a reply without choices (the activity retries it)', async () => {
    const r = await assemble(from([{ ...base, choices: [] } as Chunk]), () => undefined);
    expect(r.choices).toEqual([]);
  });
});
