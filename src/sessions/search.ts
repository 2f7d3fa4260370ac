// Session search: past conversations found by the words of their turns, through the engine's own index. Each
// conversation files a bounded, redacted summary of its turns at the end of every turn — its normalized words in the
// HermesSummary Text search attribute, the readable text in its memo (src/workflows/loop/search-summary.ts); this
// module asks visibility for the ones whose words hold the query's words, normalized the same way, in one scope, and
// cuts a snippet around the match from the readable summary. Used by the `session_search` tool and `hermes search`
// (docs/design-notes.md, "Session search").
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { redactCredentials } from '../shared/credentials';
import { HermesScope, HermesStatus, HermesSummary } from '../shared/search-attributes';
import { searchWordsOf } from '../shared/search-text';
import { SUMMARY_MEMO } from '../shared/session-summary';

export interface SearchOptions {
  /** The task queue whose conversations are searched (a Hermes client's, a worker's). */
  taskQueue: string;
  /** Only conversations filed under this scope (HermesScope); undefined: every scope. */
  scope?: string;
  /** Also conversations still running (an idle chat between turns); default: finished ones only. */
  running?: boolean;
  /** At most this many hits (default 5, at most 50). */
  limit?: number;
  /** A workflow id left out (the conversation that searches). */
  exclude?: string;
}

export interface SessionHit {
  id: string;
  runId: string;
  /** HermesStatus (running, idle, completed, failed, …), else the workflow's status. */
  status: string;
  startedAt: string;
  closedAt: string | null;
  /** The readable summary around the first match (redacted). */
  snippet: string;
  /** Query words found in the summary. */
  matched: string[];
}

export interface SearchResult {
  /** The words searched for (normalized as stored: src/shared/search-text.ts; at most MAX_WORDS). */
  words: string[];
  /** `all`: every word had to match; `any`: no conversation had all of them, so any word counted. */
  mode: 'all' | 'any';
  hits: SessionHit[];
}

export const MAX_WORDS = 8;
const MAX_HITS = 50;
const CANDIDATES = 50;

/**
 * The query's words normalized exactly as the stored words were (src/shared/search-text.ts: lower case, accents
 * folded, `[a-z0-9]` runs), so a word matches the same words on every store. Anything else (quotes, `*`, `-`,
 * `:`, `&`, operators) is a separator, so nothing a user types reaches the engine's query syntax: a double quote
 * in a Text value made the dev server's list call hang until its 10 s deadline (measured); PostgreSQL casts the
 * value with `::tsquery`.
 */
export function searchWords(query: string): string[] {
  return [...new Set(searchWordsOf(query))].slice(0, MAX_WORDS);
}

function fold(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

const quoted = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;

/**
 * The visibility query. `=` on a Text attribute matches when any word of the value is a word of the text (measured
 * on the dev server's SQLite: `HermesSummary = "postgres pizza"` matched a text with only one of them; PostgreSQL
 * joins the value's words with `|` into a tsquery; Elasticsearch's match query is OR by default too), so `all` is
 * one clause per word. Whole words only, no prefixes, on every store.
 */
export function searchQuery(words: string[], mode: 'all' | 'any', o: SearchOptions): string {
  const parts = ['WorkflowType = "conversationWorkflow"', `TaskQueue = ${quoted(o.taskQueue)}`, 'ExecutionStatus != "ContinuedAsNew"'];
  if (!o.running) parts.push('ExecutionStatus != "Running"');
  if (o.scope !== undefined) parts.push(`${HermesScope.name} = ${quoted(o.scope)}`);
  if (o.exclude) parts.push(`WorkflowId != ${quoted(o.exclude)}`);
  if (mode === 'all') parts.push(...words.map((w) => `${HermesSummary.name} = ${quoted(w)}`));
  else parts.push(`${HermesSummary.name} = ${quoted(words.join(' '))}`);
  return parts.join(' AND ');
}

/** Conversations whose summary holds every word of `query` (else any of them), best first, then newest first. */
export async function searchSessions(client: Client, query: string, o: SearchOptions): Promise<SearchResult> {
  const words = searchWords(query);
  if (!words.length) throw new Error('the query has no words to search for (letters or digits)');
  const limit = Math.max(1, Math.min(o.limit ?? 5, MAX_HITS));
  let mode: 'all' | 'any' = 'all';
  let infos = await candidates(client, searchQuery(words, mode, o));
  if (!infos.length && words.length > 1) {
    mode = 'any';
    infos = await candidates(client, searchQuery(words, mode, o));
  }
  const hits = infos.map((w) => hitOf(w, words));
  // Visibility lists newest first; a stable sort keeps that order among hits that match as many words.
  hits.sort((a, b) => b.matched.length - a.matched.length);
  return { words, mode, hits: hits.slice(0, limit) };
}

async function candidates(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const out: WorkflowExecutionInfo[] = [];
  for await (const w of client.workflow.list({ query, pageSize: CANDIDATES })) {
    out.push(w);
    if (out.length >= CANDIDATES) break;
  }
  return out;
}

function hitOf(w: WorkflowExecutionInfo, words: string[]): SessionHit {
  const sa = w.typedSearchAttributes;
  const s = snippet(readableSummary(w), words);
  return {
    id: w.workflowId,
    runId: w.runId,
    status: sa.get(HermesStatus) ?? w.status.name.toLowerCase(),
    startedAt: w.startTime.toISOString(),
    closedAt: w.closeTime?.toISOString() ?? null,
    ...s,
  };
}

/** The readable summary from the memo; a run filed before the memo held it has only the attribute's text. */
function readableSummary(w: WorkflowExecutionInfo): string {
  const memo = w.memo?.[SUMMARY_MEMO];
  return typeof memo === 'string' ? memo : (w.typedSearchAttributes.get(HermesSummary) ?? '');
}

// On the folded text: a word ends where the stored words end (src/shared/search-text.ts).
const isWordChar = (ch: string | undefined) => ch !== undefined && /[a-z0-9]/.test(ch);

/**
 * Up to `radius` characters either side of the earliest match of any word (whole words, ignoring case and
 * diacritics), cut at spaces, `…` where cut; the text's head when no word is found as written (the engine may
 * fold differently). Redacted again: a summary set by anyone but the workflow (the stock CLI can) is not trusted.
 */
export function snippet(text: string, words: string[], radius = 90): { snippet: string; matched: string[] } {
  // Folded one UTF-16 unit at a time, so positions in `folded` are positions in `text` (a unit that folds to more
  // or less than one unit, e.g. a ligature, stays as it is).
  const folded = Array.from({ length: text.length }, (_, i) => {
    const f = fold(text[i]!);
    return f.length === 1 ? f : text[i]!;
  }).join('');
  const matched: string[] = [];
  let first = -1;
  let firstLen = 0;
  for (const w of words) {
    for (let at = folded.indexOf(w); at >= 0; at = folded.indexOf(w, at + 1)) {
      if (isWordChar(folded[at - 1]) || isWordChar(folded[at + w.length])) continue;
      matched.push(w);
      if (first < 0 || at < first) [first, firstLen] = [at, w.length];
      break;
    }
  }
  const start = first < 0 ? 0 : Math.max(0, first - radius);
  const end = first < 0 ? Math.min(text.length, 2 * radius) : Math.min(text.length, first + firstLen + radius);
  let from = start;
  let to = end;
  if (from > 0) {
    const sp = text.indexOf(' ', from);
    if (sp >= 0 && sp < (first < 0 ? end : first)) from = sp + 1;
  }
  if (to < text.length) {
    const sp = text.lastIndexOf(' ', to);
    if (sp > (first < 0 ? from : first + firstLen)) to = sp;
  }
  const body = `${from > 0 ? '…' : ''}${text.slice(from, to).trim()}${to < text.length ? '…' : ''}`;
  return { snippet: redactCredentials(body).text, matched };
}

/** The tool's and the CLI's text for a result. */
export function formatSearch(query: string, r: SearchResult, o: { scope?: string; running?: boolean }): string {
  const where = `${o.running ? 'finished or running' : 'finished'} conversations${o.scope !== undefined ? ` of scope "${o.scope}"` : ''}`;
  if (!r.hits.length) return `No ${where} match ${JSON.stringify(query)} (words: ${r.words.join(', ')}).`;
  const how = r.mode === 'all' ? 'all words' : 'none has all the words; any word';
  const lines = [`${r.hits.length} of the ${where} match ${JSON.stringify(query)} (${how}), best first:`];
  r.hits.forEach((h, i) => {
    const closed = h.closedAt ? `, closed ${h.closedAt.slice(0, 16).replace('T', ' ')}` : '';
    lines.push(`${i + 1}. ${h.id} · ${h.status} · started ${h.startedAt.slice(0, 16).replace('T', ' ')} UTC${closed}`);
    lines.push(`   ${h.snippet}`);
  });
  return lines.join('\n');
}
