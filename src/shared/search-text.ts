// What a Text search attribute holds and what a query sends: normalized words, so that every visibility store indexes
// and matches them alike (docs/design-notes.md, "Session search"). PostgreSQL casts a Text value with `::tsvector`
// — the text is parsed as tsvector *syntax*, lexemes kept as written (case, punctuation, accents) — so "Q: a" is a
// syntax error there and the run's close is never recorded in visibility; SQLite's FTS5 folds case and accents;
// Elasticsearch analyzes. A run of `[a-z0-9]` words separated by single spaces is a valid tsvector literal whose
// lexemes are exactly the words FTS5 and Elasticsearch's standard analyzer split it into. Pure and workflow-safe
// (`String.prototype.normalize` is in the workflow sandbox).

/** A word is cut to this many characters, in a stored value and in a query alike, so a long word still matches. */
export const SEARCH_WORD_MAX_CHARS = 64;

/** Letters NFKD does not decompose into a base letter and marks, spelled as the Latin letters they are read as. */
const LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i', ħ: 'h' };
const LETTER_RE = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'g');

/**
 * The words of `text` as every store should see them: lower case, accents folded (compatibility decomposition, then
 * the combining marks dropped: "Café" → "cafe", "ﬁ" → "fi"), anything but `a-z` and `0-9` a separator, words cut
 * to SEARCH_WORD_MAX_CHARS. Letters outside the Latin alphabet after folding (Greek, Cyrillic, CJK, …) are
 * separators too: they are not found (a known limit).
 */
export function searchWordsOf(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(LETTER_RE, (ch) => LETTERS[ch]!);
  return (folded.match(/[a-z0-9]+/g) ?? []).map((w) => w.slice(0, SEARCH_WORD_MAX_CHARS));
}

/**
 * The value to store in a Text search attribute: the normalized words of `text` joined by single spaces, whole
 * words only, at most `maxBytes` bytes of JSON payload (ASCII: its length plus the two quotes).
 */
export function searchText(text: string, maxBytes = Infinity): string {
  let out = '';
  for (const w of searchWordsOf(text)) {
    const next = out ? `${out} ${w}` : w;
    if (next.length + 2 > maxBytes) break;
    out = next;
  }
  return out;
}
