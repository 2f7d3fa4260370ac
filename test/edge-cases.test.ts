// Edge cases found in review: a reused workflow id, an interrupt before the first workflow task, chat across
// continue-as-new, a chat whose conversation-wide budget is spent.
import { afterEach, describe, expect, it } from 'vitest';
import { ContextCache } from '../src/activities/context';
import { HermesSummary } from '../src/shared/search-attributes';
import { searchText } from '../src/shared/search-text';
import { SUMMARY_MEMO } from '../src/shared/session-summary';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('edge cases', () => {
  // A small first context comes with the call (nothing to reset); a large one is queried, and the old entry's
  // digest disagrees with the new conversation's: the cache starts over.
  it.each([
    ['small', '', { whole: 2, resets: 0 }],
    ['large', ' '.padEnd(20_000, 'x'), { whole: 0, resets: 1 }],
  ])("a reused workflow id never sees the previous conversation's context (%s first context)", async (_, pad, stats) => {
    h = await createHarness([answer('about X'), answer('about Y')]);
    const cache = new ContextCache();
    const [first, second] = await h.run(
      async () => {
        const a = await (await h.hermes.start({ prompt: `Summarise X${pad}`, id: 'daily-summary' })).result();
        const b = await (await h.hermes.start({ prompt: `Summarise Y${pad}`, id: 'daily-summary' })).result();
        return [a, b];
      },
      { contextCache: cache },
    );
    expect([first.answer, second.answer]).toEqual(['about X', 'about Y']);
    expect(h.mock.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: `Summarise Y${pad}` });
    expect(h.mock.requests[1]!.messages.some((m) => m.content?.startsWith('Summarise X'))).toBe(false);
    expect(cache.stats).toMatchObject(stats);
  });

  it('an interrupt sent before any worker ran the conversation still stops it', async () => {
    h = await createHarness([]);
    const handle = await h.hermes.start({ prompt: 'go' });
    await handle.interrupt({ reason: 'changed my mind' });
    const result = await h.run(() => handle.result());
    expect(result).toMatchObject({ status: 'interrupted', reason: 'changed my mind', modelCalls: 0 });
    expect(h.mock.requests).toHaveLength(0);
  });

  it('a chat continues as new between turns and keeps its conversation', async () => {
    const replies = Array.from({ length: 8 }, (_, i) => answer(`answer ${i + 1}`));
    h = await createHarness(replies);
    const { answers, result, state, chat } = await h.run(async () => {
      const chat = await h.hermes.start({ mode: 'chat', maxHistoryEvents: 40 });
      const answers: string[] = [];
      for (let i = 1; i <= 8; i++) answers.push((await chat.send(`message ${i}`)).answer);
      const state = await chat.state();
      await chat.end();
      return { answers, result: await chat.result(), state, chat: chat.id };
    });
    expect(answers).toEqual(replies.map((_, i) => `answer ${i + 1}`));
    expect(state.turn).toBe(8);
    expect(result.runs).toBeGreaterThan(1);
    const last = h.mock.requests.at(-1)!.messages.map((m) => m.content);
    expect(last).toEqual(expect.arrayContaining(['message 1', 'answer 1', 'message 8']));
    // Session search's readable summary (the memo) crossed every continue-as-new; the attribute holds its words.
    const d = await h.hermes.get(chat).workflow.describe();
    const turns = Array.from({ length: 8 }, (_, i) => `Q: message ${8 - i} A: answer ${8 - i}`);
    expect(d.memo?.[SUMMARY_MEMO]).toBe(turns.join(' | '));
    expect(d.typedSearchAttributes.get(HermesSummary)).toBe(searchText(turns.join(' ')));
  });

  it("shows each chat message in the workflow's current details, redacted and cut short", async () => {
    h = await createHarness([answer('one'), answer('two')]);
    const secret = `sk-${'a1B2c3D4e5'.repeat(4)}`;
    const details = await h.run(async () => {
      const chat = await h.hermes.start({ mode: 'chat' });
      const wf = h.client.workflow.getHandle(chat.id);
      const seen: string[] = [];
      for (const text of [`my key is ${secret}`, `long ${'word '.repeat(100)}`]) {
        await chat.send(text);
        seen.push((await wf.query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails);
      }
      await chat.end();
      return seen;
    });
    expect(details[0]).toMatch(/turn 1, user: my key is \[REDACTED/);
    expect(details[0]).not.toContain(secret);
    expect(details[1]).toMatch(/turn 2, user: long (word ){30,}.*…/);
    expect(details[1]).not.toContain('word '.repeat(60));
  });

  it("once a chat's token budget is spent, further messages are answered without a model call", async () => {
    h = await createHarness([toolCall('list_dir', {}), answer('summary of turn 1')]);
    const { one, two } = await h.run(async () => {
      const chat = await h.hermes.start({ mode: 'chat', maxTokens: 10 });
      const one = await chat.send('first');
      const two = await chat.send('second');
      await chat.end();
      return { one, two };
    });
    expect(one).toMatchObject({ status: 'budget_exhausted', answer: 'summary of turn 1' });
    expect(two.status).toBe('budget_exhausted');
    expect(two.answer).toMatch(/budget is used up \(tokens: 30 of 10\)/);
    expect(h.mock.requests).toHaveLength(2);
  });
});
