// tool_search's ranking: words of the query against each candidate's name and description. Runs in the tool
// activity; the workflow shows what it found (the recorded result's `found`), so changing this ranking never
// changes a replay.

export interface SearchCandidate {
  name: string;
  description: string;
}

/** At most this many tools per search: a small model's request stays small. */
export const MAX_FOUND = 4;

const STOP = new Set([
  'a',
  'an',
  'the',
  'to',
  'of',
  'in',
  'on',
  'for',
  'and',
  'or',
  'with',
  'tool',
  'tools',
  'i',
  'need',
  'want',
  'that',
  'it',
  'is',
]);

function terms(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP.has(w));
}

/** A word matches another when one starts with the other (3 letters at least): "search" finds "searches". */
function matches(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.startsWith(short.slice(0, Math.max(3, short.length - 2)));
}

/** The candidates the query names or describes, best first; the text the model reads. */
export function searchTools(query: string, candidates: SearchCandidate[]): { found: string[]; text: string } {
  const q = terms(query);
  const scored = candidates
    .map((c, i) => {
      const nameWords = terms(c.name.replace(/_/g, ' '));
      const descWords = terms(c.description);
      let score = 0;
      for (const w of q) {
        if (c.name.toLowerCase() === w) score += 5;
        if (nameWords.some((n) => matches(n, w))) score += 3;
        if (descWords.some((d) => matches(d, w))) score += 1;
      }
      return { c, score, i };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i);
  // Only the close matches: a word shared with one description ("text") does not show a tool the query did not mean.
  const best = scored[0]?.score ?? 0;
  const kept = scored.filter((s) => s.score * 2 >= best).slice(0, MAX_FOUND);
  if (!candidates.length) return { found: [], text: 'No more tools: every tool of this conversation is shown already.' };
  if (!kept.length) {
    return { found: [], text: `No tool matches "${query}". Tools you can search for: ${candidates.map((c) => c.name).join(', ')}.` };
  }
  const lines = kept.map((s) => `- ${s.c.name}: ${s.c.description}`);
  return { found: kept.map((s) => s.c.name), text: [`Found ${kept.length}; you can call them from now on:`, ...lines].join('\n') };
}
