// What session search indexes (docs/design-notes.md, "Session search"): the readable summary of a conversation's
// turns, set by the workflow at the end of each turn in its memo (SUMMARY_MEMO, what people and snippets read), its
// normalized words in the HermesSummary Text search attribute (what the index matches: src/shared/search-text.ts),
// and the scope it is filed under. Pure and workflow-safe: the workflow builds both with it, tests check their bounds.
import { redactCredentials } from './credentials';
import { memoryScopeOf } from './memory';
import { searchText } from './search-text';

/** The memo field that holds the readable summary (`Q: … A: … | …`), listed with each run by visibility. */
export const SUMMARY_MEMO = 'hermesSummary';

/**
 * The server refuses a search attribute value whose payload — the JSON text, quotes included — exceeds 2,048
 * bytes (`limit.searchAttributesSizeOfValue`; measured on the dev server: a 2,046-character string passes, 2,047
 * is "value size 2049 exceeds size limit 2048"; 1,023 `é` pass, 1,024 do not). An upsert over it would fail the
 * workflow task (the server's BadSearchAttributes; not measured here), so the summary stays well under it.
 */
export const SUMMARY_MAX_BYTES = 1_800;
/** The newest turn's share, so one long answer does not push every earlier turn out at once. */
export const TURN_MAX_BYTES = 1_200;
const PROMPT_MAX_BYTES = 400;
const SEPARATOR = ' | ';

/** The scope a conversation's summary is filed under and searches in: its memory scope (who shares memory shares history). */
export function searchScopeOf(input: { memoryScope?: string; model?: string }): string {
  return memoryScopeOf(input);
}

/** Bytes one code point costs in the attribute's JSON payload. */
function jsonCost(cp: number): number {
  if (cp === 0x22 || cp === 0x5c) return 2; // \" and \\
  if (cp < 0x20) return 6; // \u00XX (cleaned out before, counted anyway)
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp >= 0xd800 && cp <= 0xdfff) return 6; // a lone surrogate is escaped
  return cp < 0x10000 ? 3 : 4;
}

/** Size of `s` as the server measures a string attribute: its JSON text in UTF-8, quotes included. */
export function jsonBytes(s: string): number {
  let n = 2;
  for (const ch of s) n += jsonCost(ch.codePointAt(0)!);
  return n;
}

/** `s` cut to at most `max` JSON bytes, at a word boundary when one is near, with `…` when cut. */
export function cutToBytes(s: string, max: number): string {
  if (jsonBytes(s) <= max) return s;
  let n = 2 + 3; // quotes and the ellipsis
  let end = 0;
  for (const ch of s) {
    n += jsonCost(ch.codePointAt(0)!);
    if (n > max) break;
    end += ch.length;
  }
  let cut = s.slice(0, end);
  // Half a word would be indexed as a word of its own.
  const space = cut.lastIndexOf(' ');
  if (space > end - 40) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

/** One line: control characters and runs of white space become one space. */
function flat(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  return text.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
}

/**
 * The readable summary after a turn: this turn's prompt and answer (redacted by the built-in credential rules, on one
 * line), then what the summary held before, newest first, cut to SUMMARY_MAX_BYTES. `previous` is the memo's current
 * value (already redacted and bounded).
 */
export function turnSummary(previous: string | undefined, prompt: string, answer: string): string {
  const p = flat(redactCredentials(prompt).text);
  const a = flat(redactCredentials(answer).text);
  const turn = cutToBytes(`Q: ${cutToBytes(p, PROMPT_MAX_BYTES)} A: ${a}`, TURN_MAX_BYTES);
  const prev = previous ? flat(previous) : '';
  return cutToBytes(prev ? `${turn}${SEPARATOR}${prev}` : turn, SUMMARY_MAX_BYTES);
}

/**
 * The HermesSummary value for a readable summary: its words normalized (src/shared/search-text.ts), so no store
 * parses any of it as syntax, within the attribute's bound. Made from the redacted text, so redaction holds; a
 * redaction marker `[REDACTED:openai-key]` becomes the words `redacted openai key`.
 */
export function summarySearchText(readable: string): string {
  return searchText(readable, SUMMARY_MAX_BYTES);
}
