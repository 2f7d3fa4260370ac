// The words a Text search attribute stores and a query sends (src/shared/search-text.ts): one normal form that
// PostgreSQL's `::tsvector` cast accepts as it is (no syntax, lexemes as every other store splits them), matched
// the same way by SQLite's FTS5 and Elasticsearch.
import { describe, expect, it } from 'vitest';
import { searchQuery, searchWords } from '../src/sessions/search';
import { searchText, searchWordsOf, SEARCH_WORD_MAX_CHARS } from '../src/shared/search-text';
import { jsonBytes, SUMMARY_MAX_BYTES, summarySearchText, turnSummary } from '../src/shared/session-summary';

const ACCEPTANCE = 'Note: done. The Zebrafish migration waits until March; report filed at the Café.';
/** A valid tsvector literal with no syntax in it: lexemes of a-z and 0-9, single spaces, nothing else. */
const WORDS_ONLY = /^([a-z0-9]+( [a-z0-9]+)*)?$/;
const SECRET = ['sk', 'proj', 'Q7w8E9r0T1y2U3i4O5p6A7s8D9f0'].join('-');

describe('searchText: what a Text attribute stores', () => {
  it('turns the acceptance text into plain words: no colon, period, semicolon, capital or accent', () => {
    const stored = searchText(ACCEPTANCE);
    expect(stored).toBe('note done the zebrafish migration waits until march report filed at the cafe');
    expect(stored).toMatch(WORDS_ONLY);
    for (const ch of [':', '.', ';', 'é', 'Z', 'M', 'C']) expect(stored).not.toContain(ch);
  });

  it('finds the queries zebrafish, cafe, Café and march among the stored words, normalized the same way', () => {
    const stored = new Set(searchText(ACCEPTANCE).split(' '));
    for (const q of ['zebrafish', 'cafe', 'Café', 'march', 'ZEBRAFISH', 'Cafe\u0301']) {
      const words = searchWords(q);
      expect(words, q).toHaveLength(1);
      expect(stored.has(words[0]!), q).toBe(true);
    }
    expect(searchWords('Café')).toEqual(['cafe']);
    expect(searchWords('zebrafish, March!')).toEqual(['zebrafish', 'march']);
  });

  it('leaves none of what tsvector and tsquery parse: positions, weights, quotes, backslashes, operators', () => {
    const hostile = `Q: word:1A it's "quoted" back\\slash a&b (c|d) !e <-> f:* 'x':2B,3C`;
    const stored = searchText(hostile);
    expect(stored).toMatch(WORDS_ONLY);
    expect(stored).toBe('q word 1a it s quoted back slash a b c d e f x 2b 3c');
    expect(searchWords(hostile)).toEqual(['q', 'word', '1a', 'it', 's', 'quoted', 'back', 'slash']); // at most 8
  });

  it('folds accents and letters without a decomposition, and compatibility forms', () => {
    expect(searchText('Ærøskøbing Straße Łódź ﬁsh Ｈｅｌｌｏ naïve Œuvre')).toBe('aeroskobing strasse lodz fish hello naive oeuvre');
    expect(searchText('日本語 и ελληνικά only')).toBe('only'); // non-Latin letters are not words (a known limit)
    expect(searchText('')).toBe('');
    expect(searchText(' :: -- ')).toBe('');
  });

  it('cuts a long word to the same length in the value and in a query, so it still matches', () => {
    const long = 'x'.repeat(100);
    expect(searchWordsOf(long)).toEqual(['x'.repeat(SEARCH_WORD_MAX_CHARS)]);
    expect(searchWords(long)).toEqual(searchText(long).split(' '));
  });

  it('stays within the bound with whole words only', () => {
    const text = 'Zebrafish: migration, '.repeat(500);
    const stored = searchText(text, 100);
    expect(jsonBytes(stored)).toBeLessThanOrEqual(100);
    expect(stored).toMatch(WORDS_ONLY);
    expect(stored.endsWith('zebrafish') || stored.endsWith('migration')).toBe(true);
  });
});

describe('the summary a turn files', () => {
  it('keeps the readable text for the memo and gives the attribute its normalized words, redacted before', () => {
    const readable = turnSummary(undefined, `Deploy it, key ${SECRET}`, ACCEPTANCE);
    expect(readable).toBe(`Q: Deploy it, key [REDACTED:openai-key] A: ${ACCEPTANCE}`);
    const stored = summarySearchText(readable);
    expect(stored).toBe(`q deploy it key redacted openai key a ${searchText(ACCEPTANCE)}`);
    expect(stored).toMatch(WORDS_ONLY);
    expect(stored).not.toContain(SECRET.toLowerCase().replace(/-/g, ' '));
    // The newest turn first; the bound holds for the words too, whatever the readable text held.
    let s: string | undefined;
    for (let i = 0; i < 20; i++) s = turnSummary(s, `question ${i}: ${'ü"🦓 '.repeat(300)}`, `answer ${i} ${'Café; '.repeat(500)}`);
    const words = summarySearchText(s!);
    expect(jsonBytes(words)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(words.startsWith('q question 19 u u')).toBe(true);
    expect(words).toMatch(WORDS_ONLY);
  });

  it('is searched with one clause per word, all of them ANDed, each a normalized word', () => {
    const q = searchQuery(searchWords('Zebrafish: Café'), 'all', { taskQueue: 'q' });
    expect(q).toContain('HermesSummary = "zebrafish" AND HermesSummary = "cafe"');
    expect(searchQuery(searchWords('Zebrafish: Café'), 'any', { taskQueue: 'q' })).toContain('HermesSummary = "zebrafish cafe"');
  });
});
