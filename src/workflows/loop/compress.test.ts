// When the context is compressed before a model step, and what the first phase (no model call) keeps: the
// head and the recent tail verbatim, old tool results as one line each. The phase that summarises the middle
// calls the model, so these contexts are built to need no summary; test/compression.test.ts covers that phase
// on a server.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../shared/defaults';
import type { StepEvent } from '../../shared/events';
import type { ChatMessage } from '../../shared/wire';
import { contextChars } from '../rules/context-ops';
import { ZERO_USAGE } from '../rules/usage';
import { CHARS_PER_TOKEN, CompressionState } from '../state/compression-state';
import type { Conversation } from '../state/conversation-state';
import { TodoList } from '../state/todo';
import { Transcript } from '../state/transcript';
import { compressOnOverflow, maybeCompress } from './compress';

/** One tool round: the assistant's call and its result. */
const round = (i: number, output: string): ChatMessage[] => [
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"f${i}.txt"}` } }],
  },
  { role: 'tool', tool_call_id: `c${i}`, content: output },
];
const HEAD: ChatMessage[] = [
  { role: 'system', content: 'You are Hermes.' },
  { role: 'user', content: 'Read the files and report.' },
];
/** Six rounds with big results, then four recent ones (eight messages: the tail a compression keeps). */
const LONG = [
  ...HEAD,
  ...[0, 1, 2, 3, 4, 5].flatMap((i) => round(i, String(i).repeat(4_000))),
  ...[6, 7, 8, 9].flatMap((i) => round(i, String(i).repeat(300))),
];
/** Only the head and a tail of big results: nothing is old enough to cut, and no middle to summarise. */
const ALL_RECENT = [...HEAD, ...[0, 1, 2, 3].flatMap((i) => round(i, String(i).repeat(6_000)))];

/**
 * The parts of a conversation compression uses, real where they hold its rules (transcript, compression state,
 * todo list); note and publish are recorded. A whole Conversation needs a workflow context (its meter reads
 * workflowInfo()). The last model call reported the context's size in tokens at 3.5 characters a token.
 */
function conversation(messages: ChatMessage[], opts: { window?: number; compressAt?: number; promptTokens?: number } = {}) {
  const transcript = new Transcript({ messages: messages.slice(), contextVersion: 0, turnStartMessage: 1 }, undefined);
  const compression = new CompressionState(undefined);
  const chars = contextChars(messages);
  const window = opts.window ?? 10_000;
  compression.learn(
    {
      message: { content: '' },
      model: 'test-model',
      usage: { ...ZERO_USAGE, promptTokens: opts.promptTokens ?? Math.round(chars / CHARS_PER_TOKEN) },
      contextWindow: window,
    },
    chars,
    undefined,
  );
  const notes: string[] = [];
  const events: StepEvent[] = [];
  const meter = { turn: 1 };
  const parts = {
    transcript,
    compression,
    limits: { ...DEFAULT_LIMITS, compressAt: opts.compressAt ?? 0.5 },
    model: { profile: undefined },
    meter,
    todo: new TodoList(undefined),
    note: (_name: string, summary: string) => void notes.push(summary),
    publish: (ev: StepEvent) => void events.push(ev),
  };
  return { c: parts as unknown as Conversation, transcript, compression, notes, events, meter };
}

describe('maybeCompress', () => {
  it('past compressAt of the window, cuts old tool results to one line and keeps the head and the recent tail verbatim', async () => {
    const { c, transcript, notes, events, compression } = conversation(LONG);
    expect(compression.tokensFor(contextChars(LONG))).toBeGreaterThan(5_000);
    await maybeCompress(c);
    const after = transcript.messages;
    expect(after).toHaveLength(LONG.length);
    expect(after.slice(0, 2)).toEqual(HEAD);
    expect(after.slice(-8)).toEqual(LONG.slice(-8));
    const old = after.slice(2, -8).filter((m) => m.role === 'tool');
    expect(old.map((m) => m.content)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `[read_file] f${i}.txt → 1 line, 4000 characters`));
    // The calls themselves stay, so every result still answers its call.
    expect(after.slice(2, -8).filter((m) => m.role === 'assistant')).toEqual(LONG.slice(2, -8).filter((m) => m.role === 'assistant'));
    expect(transcript.version).toBe(1);
    expect(compression.count).toBe(1);
    expect(events).toEqual([{ type: 'compressed', before: contextChars(LONG), after: contextChars(after) }]);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^~\d+ prompt tokens, over 50 % of the 10000-token window: compressed \d+ → \d+ characters \(\d+ % saved\): 6 old tool message\(s\) cut to one line$/,
    );
  });

  it('leaves a context under the threshold alone', async () => {
    const { c, transcript, notes } = conversation(LONG, { window: 100_000 });
    await maybeCompress(c);
    expect(transcript.messages).toEqual(LONG);
    expect(transcript.version).toBe(0);
    expect(notes).toEqual([]);
  });

  it('does nothing without a known window, before any call reported prompt tokens, or with compressAt 0', async () => {
    const cases = [conversation(LONG, { compressAt: 0 }), conversation(LONG, { window: 0 }), conversation(LONG, { promptTokens: 0 })];
    for (const { c, transcript, compression } of cases) {
      await maybeCompress(c);
      expect([transcript.version, compression.count]).toEqual([0, 0]);
    }
  });

  it('stops for the turn after two compressions that saved nothing, and tries again in the next turn', async () => {
    const { c, notes, meter, compression } = conversation(ALL_RECENT);
    await maybeCompress(c);
    expect(notes).toEqual([
      expect.stringMatching(/compressed \d+ → \d+ characters \(0 % saved\): no old tool output to cut; nothing in the middle to summarise$/),
    ]);
    await maybeCompress(c);
    expect(notes.at(-1)).toBe('automatic compression stopped for this turn: the last two compressions saved less than 10 % each');
    await maybeCompress(c);
    expect([notes.length, compression.count]).toEqual([3, 2]);
    meter.turn = 2;
    await maybeCompress(c);
    expect(compression.count).toBe(3);
  });
});

describe('compressOnOverflow', () => {
  it('keeps only the last few tool results (fewer than an automatic compression) and says whether it saved anything', async () => {
    const { c, transcript } = conversation(LONG, { window: 100_000 });
    expect(await compressOnOverflow(c)).toBe(true);
    // Round 6 is in the automatic tail of eight messages, not in the six an overflow keeps.
    expect(transcript.messages.slice(-6)).toEqual(LONG.slice(-6));
    expect(transcript.messages.at(-7)?.content).toBe('[read_file] f6.txt → 1 line, 300 characters');
  });

  it('gives up after three in a turn, and may compress again in the next', async () => {
    const { c, notes, meter } = conversation(ALL_RECENT);
    // The first cuts the oldest result (outside the last six messages); nothing is left to cut after it.
    expect([await compressOnOverflow(c), await compressOnOverflow(c), await compressOnOverflow(c)]).toEqual([true, false, false]);
    expect(notes).toHaveLength(3);
    expect(await compressOnOverflow(c)).toBe(false);
    expect(notes.at(-1)).toBe('context overflow after 3 compressions in this turn: giving up');
    meter.turn = 2;
    await compressOnOverflow(c);
    expect(notes.at(-1)).toMatch(/^context overflow: compressed/);
  });
});
