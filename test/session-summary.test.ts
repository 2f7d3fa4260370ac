// Session search's pure parts: the summary the workflow files (bounded under the server's 2,048-byte limit for a
// search attribute value, redacted, newest turn first), the query's words and the snippet.
import { describe, expect, it } from 'vitest';
import { searchQuery, searchWords, snippet } from '../src/sessions/search';
import { bounded } from '../src/sessions/view';
import { cutToBytes, jsonBytes, SUMMARY_MAX_BYTES, turnSummary } from '../src/shared/session-summary';

const SECRET = ['sk', 'ant', 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2'].join('-');

describe('turnSummary', () => {
  it('measures what the server measures: the JSON text in UTF-8, quotes included', () => {
    expect(jsonBytes('a'.repeat(2_046))).toBe(2_048); // passes the dev server's limit; 2,047 was refused
    expect(jsonBytes('é')).toBe(4);
    expect(jsonBytes('"\\')).toBe(6);
    expect(jsonBytes('🦓')).toBe(6);
  });

  it('stays under the bound whatever the text: long, multibyte, quotes, many turns', () => {
    let s: string | undefined;
    for (let i = 0; i < 30; i++) {
      s = turnSummary(s, `question ${i} ${'ü"🦓 '.repeat(300)}`, `answer ${i} ${'日本語 '.repeat(500)}`);
      expect(jsonBytes(s)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    }
    expect(s!.startsWith('Q: question 29')).toBe(true);
    expect(cutToBytes('word '.repeat(1000), 100).endsWith('word…')).toBe(true);
  });

  it('redacts credentials, keeps one line, and puts the newest turn first', () => {
    const first = turnSummary(undefined, `key ${SECRET}\nplease`, 'The zebrafish\tplan.');
    expect(first).toBe('Q: key [REDACTED:anthropic-key] please A: The zebrafish plan.');
    const second = turnSummary(first, 'next?', 'Lighthouse.');
    expect(second).toBe(`Q: next? A: Lighthouse. | ${first}`);
  });
});

describe('search words and query', () => {
  it('keeps letters and digits only, folded, so nothing reaches the engine as syntax', () => {
    expect(searchWords('Zebra* "billing" OR -Café naïve x2')).toEqual(['zebra', 'billing', 'or', 'cafe', 'naive', 'x2']);
    expect(searchWords('" * - ()')).toEqual([]);
    const q = searchQuery(['a', 'b'], 'all', { taskQueue: 'q"1', scope: 'default', exclude: 'me' });
    expect(q).toContain('TaskQueue = "q\\"1"');
    expect(q).toContain('HermesScope = "default"');
    expect(q).toContain('WorkflowId != "me"');
    expect(q).toContain('ExecutionStatus != "Running"');
    expect(q).toContain('HermesSummary = "a" AND HermesSummary = "b"');
    expect(searchQuery(['a', 'b'], 'any', { taskQueue: 'q', running: true })).not.toContain('Running');
    expect(searchQuery(['a', 'b'], 'any', { taskQueue: 'q' })).toContain('HermesSummary = "a b"');
  });
});

describe('snippet', () => {
  it('cuts around the earliest whole-word match, any case and accents', () => {
    const text = `${'lead '.repeat(40)}the Zébrafish plan ${'tail '.repeat(40)}`;
    const s = snippet(text, ['zebrafish', 'plan', 'absent'], 30);
    expect(s.matched).toEqual(['zebrafish', 'plan']);
    expect(s.snippet).toMatch(/^….*the Zébrafish plan.*…$/);
    expect(s.snippet.length).toBeLessThan(80);
    expect(snippet('zebrafishes only', ['zebrafish']).matched).toEqual([]);
    expect(snippet(`token ${SECRET} zebrafish`, ['zebrafish']).snippet).not.toContain(SECRET);
  });
});

describe('bounded transcript', () => {
  it('keeps the head and the tail and says how much was left out', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(50)}`);
    const out = bounded('header', lines, 1_000);
    expect(out.length).toBeLessThanOrEqual(1_000);
    expect(out).toContain('line 0 ');
    expect(out).toContain('line 99 ');
    expect(out).toMatch(/\[… \d+ messages left out …\]/);
    expect(bounded('h', ['a', 'b'], 100)).toBe('h\na\nb');
  });
});
