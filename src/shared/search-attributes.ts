// Search attributes the workflow upserts (and HermesEncryption, which the client sets at start) so conversations
// can be filtered in the Web UI and `temporal workflow list --query`. Registered by the embedded server and by
// workers on start.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const HermesStatus = defineSearchAttributeKey('HermesStatus', SearchAttributeType.KEYWORD);
export const HermesWaitingFor = defineSearchAttributeKey('HermesWaitingFor', SearchAttributeType.KEYWORD);
/** The task a scheduled firing belongs to (set by its schedule's action, and on the schedule itself). */
export const HermesSchedule = defineSearchAttributeKey('HermesSchedule', SearchAttributeType.KEYWORD);
/** The model profile a conversation uses now, and its iteration count (kept current). */
export const HermesModel = defineSearchAttributeKey('HermesModel', SearchAttributeType.KEYWORD);
export const HermesIterations = defineSearchAttributeKey('HermesIterations', SearchAttributeType.INT);
/**
 * Set at start by a client that encrypts payloads: `aes-gcm key <keyId>` (src/codec/marker.ts), so the Web UI can
 * list the runs that need `hermes codec-server`. Never content.
 */
export const HermesEncryption = defineSearchAttributeKey('HermesEncryption', SearchAttributeType.KEYWORD);
/**
 * Session search (src/sessions/): the normalized words (src/shared/search-text.ts: `[a-z0-9]` only, so PostgreSQL's
 * `::tsvector` cast parses no syntax in it) of a bounded, redacted text of the conversation's turns (prompt and
 * answer, newest first; the readable text is the memo's `hermesSummary`), upserted at the end of each turn, matched
 * word by word by the visibility store's full-text index (SQLite FTS5 on the dev server, PostgreSQL or
 * Elasticsearch on clusters). Never set when payloads are encrypted. Any Text attribute added here gets
 * `searchText` values too.
 */
export const HermesSummary = defineSearchAttributeKey('HermesSummary', SearchAttributeType.TEXT);
/** Whose conversation it is for session search: its memory scope (src/shared/session-summary.ts). */
export const HermesScope = defineSearchAttributeKey('HermesScope', SearchAttributeType.KEYWORD);
export const ALL_SEARCH_ATTRIBUTES = [
  HermesStatus,
  HermesWaitingFor,
  HermesSchedule,
  HermesModel,
  HermesIterations,
  HermesEncryption,
  HermesSummary,
  HermesScope,
];

/** Name → type of every attribute, for registering them (the embedded server, `hermes worker`). */
export const SEARCH_ATTRIBUTE_TYPES: Record<string, string> = Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, k.type]));
