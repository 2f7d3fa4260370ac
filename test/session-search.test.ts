// Session search on the real dev server (the binary the embedded server runs, with the same search attributes):
// finished conversations file a redacted summary — its normalized words in the HermesSummary Text attribute, the
// readable text in the memo — the engine's full-text index finds them, and the session_search / session_view tools
// read them — only in the caller's scope, never a secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchSessions, type SearchOptions } from '../src/sessions/search';
import { HermesScope, HermesSummary } from '../src/shared/search-attributes';
import { SUMMARY_MEMO } from '../src/shared/session-summary';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';

// Built at run time so no key-shaped literal sits in the source.
const SECRET = ['sk', 'proj', 'Q7w8E9r0T1y2U3i4O5p6A7s8D9f0'].join('-');
const WORD = 'zebrafish';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('session search', () => {
  it('finds the finished conversation whose answer has the word, with a snippet, in its scope only, without the secret', async () => {
    const ids = { billing: 'ss-billing', lunch: 'ss-lunch', deploy: 'ss-deploy', other: 'ss-other-scope', asker: 'ss-asker' };
    const run = `${Date.now().toString(36)}`;
    const id = (k: keyof typeof ids) => `${ids[k]}-${run}`;
    h.mock.push(
      answer(`We decided on Postgres for billing; the ${WORD} migration waits until March.`),
      answer('Pizza near the office, at noon.'),
      answer('Deployed the lighthouse service with the key you gave.'),
      answer(`Bob's notes: the ${WORD} tank is cleaned on Fridays.`),
    );
    const opts = { taskQueue: h.taskQueue, scope: 'default' } satisfies SearchOptions;
    const result = await h.run(async () => {
      await (await h.hermes.start({ id: id('billing'), prompt: `Which database for billing? (my key is ${SECRET})` })).result();
      await (await h.hermes.start({ id: id('lunch'), prompt: 'Where do we eat today?' })).result();
      await (await h.hermes.start({ id: id('deploy'), prompt: `Deploy lighthouse with OPENAI_API_KEY=${SECRET}` })).result();
      await (await h.hermes.start({ id: id('other'), prompt: 'What about the fish?', memoryScope: 'bob' })).result();

      // Visibility is eventually consistent: wait (bounded) until the closed runs are indexed.
      const found = await waitFor('the billing conversation in the index', async () => {
        const r = await searchSessions(h.client, WORD, opts);
        return r.hits.some((x) => x.id === id('billing')) ? r : undefined;
      });
      expect(found.hits.map((x) => x.id)).toEqual([id('billing')]);
      expect(found.mode).toBe('all');
      expect(found.hits[0]!.matched).toEqual([WORD]);
      expect(found.hits[0]!.snippet).toContain(`the ${WORD} migration waits`);
      expect(found.hits[0]!.status).toBe('completed');
      // The other scope's conversation has the word too, and is found only there.
      const bob = await waitFor('the other scope in the index', async () => {
        const r = await searchSessions(h.client, WORD, { ...opts, scope: 'bob' });
        return r.hits.length ? r : undefined;
      });
      expect(bob.hits.map((x) => x.id)).toEqual([id('other')]);

      // The attribute itself: normalized words only, redacted, scoped; the readable text is in the memo.
      const d = await h.hermes.get(id('deploy')).workflow.describe();
      const summary = d.typedSearchAttributes.get(HermesSummary)!;
      expect(summary).toMatch(/^q deploy lighthouse with openai api key redacted [a-z0-9 ]+$/);
      expect(summary).not.toContain(SECRET.split('-').at(-1)!.toLowerCase());
      const readable = d.memo?.[SUMMARY_MEMO] as string;
      expect(readable).toContain('Q: Deploy lighthouse');
      expect(readable).toContain('[REDACTED');
      expect(readable).not.toContain(SECRET);
      expect(d.typedSearchAttributes.get(HermesScope)).toBe('default');

      // Every search that reaches the secret's conversations shows none of it.
      for (const q of ['key', 'lighthouse', 'billing', 'sk proj', SECRET]) {
        const r = await searchSessions(h.client, q, { ...opts, scope: undefined });
        expect(JSON.stringify(r)).not.toContain(SECRET);
      }

      // The model asks: session_search, then session_view of the hit.
      h.mock.push(
        toolCall('session_search', { query: `${WORD} migration` }, 'c1'),
        toolCall('session_view', { id: id('billing') }, 'c2'),
        answer('Postgres.'),
      );
      return (await h.hermes.start({ id: id('asker'), prompt: `What did we decide about the ${WORD} migration?` })).result();
    });
    expect(result.status).toBe('completed');
    const reqs = h.mock.requests;
    const searched = toolResult(reqs.at(-2)!.messages, 'c1')!;
    expect(searched).toContain(id('billing'));
    expect(searched).toContain(`the ${WORD} migration waits until March`);
    expect(searched).not.toContain(id('other')); // another scope
    expect(searched).not.toContain(id('asker')); // itself
    const viewed = toolResult(reqs.at(-1)!.messages, 'c2')!;
    expect(viewed).toContain(`conversation ${id('billing')} · completed`);
    expect(viewed).toContain('[user] Which database for billing?');
    expect(viewed).toContain(`[assistant] We decided on Postgres for billing`);
    for (const text of [searched, viewed]) expect(text).not.toContain(SECRET);
    // A conversation of another scope cannot be read either.
    h.mock.push(toolCall('session_view', { id: id('other') }, 'c3'), answer('ok'));
    await h.run(async () => (await h.hermes.start({ prompt: 'peek' })).result());
    expect(toolResult(h.mock.requests.at(-1)!.messages, 'c3')).toContain(`no conversation ${id('other')} in scope "default"`);
    expect(h.mock.errors).toEqual([]);
  }, 60_000);

  it('finds an answer full of punctuation, capitals and accents by its plain words (zebrafish, cafe, march)', async () => {
    const ANSWER = 'Note: done. The Zebrafish migration waits until March; report filed at the Café.';
    const wid = `ss-acceptance-${Date.now().toString(36)}`;
    const opts = { taskQueue: h.taskQueue, scope: 'acceptance' } satisfies SearchOptions;
    h.mock.push(answer(ANSWER));
    await h.run(async () => {
      await (await h.hermes.start({ id: wid, prompt: 'Status of the migration?', memoryScope: 'acceptance' })).result();
      for (const q of ['zebrafish', 'cafe', 'Café', 'march', 'Zebrafish: March']) {
        const r = await waitFor(`"${q}" in the index`, async () => {
          const res = await searchSessions(h.client, q, opts);
          return res.hits.length ? res : undefined;
        });
        expect(
          r.hits.map((x) => x.id),
          q,
        ).toEqual([wid]);
        expect(r.mode, q).toBe('all');
        // The snippet is the readable text, from the memo.
        expect(r.hits[0]!.snippet, q).toContain(ANSWER);
      }
      // Words it does not hold, as words: no prefix, no match inside a word.
      for (const q of ['zebra', 'caf', 'marc']) expect((await searchSessions(h.client, q, opts)).hits, q).toEqual([]);
      const d = await h.hermes.get(wid).workflow.describe();
      expect(d.typedSearchAttributes.get(HermesSummary)).toBe(
        'q status of the migration a note done the zebrafish migration waits until march report filed at the cafe',
      );
      expect(d.memo?.[SUMMARY_MEMO]).toBe(`Q: Status of the migration? A: ${ANSWER}`);
    });
    expect(h.mock.errors).toEqual([]);
  }, 60_000);
});
