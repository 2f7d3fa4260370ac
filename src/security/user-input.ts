// What a user types — a prompt, a chat message, an answer, an interrupt's message, a system text — is redacted
// before it is sent, like everything a worker records: it becomes the workflow's input or an update's arguments,
// which the history keeps and the Web UI, `hermes list --json` and `hermes export` show. One function for the
// client, the CLI and `hermes serve`. A run whose payloads are encrypted (HERMES_PAYLOAD_KEY) is left as typed:
// the server only holds ciphertext.
import { encryptionKeyId } from '../codec/marker';
import { readConfig } from '../config/load';
import { placeholdersIn } from '../shared/redaction-types';
import { Redactor } from './redact';

/** What redacting a user's text replaced, and the notice that says so. */
export interface InputRedaction {
  /** Secrets replaced. */
  count: number;
  /** The placeholders they became ([REDACTED:openai-key]…). */
  placeholders: string[];
  /** One line for the user: what happened, and what to do instead. */
  notice: string;
}

let redactor: Redactor | undefined;
/** This process's secret-named variables, the config file's `redact` rules and the built-in rules. */
function inputRedactor(): Redactor {
  if (!redactor) {
    let redact = {};
    try {
      redact = readConfig()?.config.redact ?? {};
    } catch {
      // A broken config file is reported where it is loaded for its own sake; the built-in rules still apply.
    }
    redactor = new Redactor({ env: process.env, ...redact });
  }
  return redactor;
}

/** The notice for `count` secrets replaced with `placeholders`. */
export function inputRedactionNotice(count: number, placeholders: string[]): string {
  return (
    `${count} secret(s) in what you typed were replaced before sending (${placeholders.slice(0, 5).join(', ')}): the conversation's ` +
    "history keeps its input, and the model does not need the value. To use a secret, put it in the worker's environment or a " +
    'file and refer to it by name; to send typed text as it is, encrypt the run (HERMES_PAYLOAD_KEY).'
  );
}

/**
 * `texts` redacted (same keys; undefined ones left out of the count), unless `client` encrypts its payloads.
 * `redaction` is set when something was replaced.
 */
export function redactUserTexts<T extends Record<string, string | undefined>>(
  texts: T,
  client?: Parameters<typeof encryptionKeyId>[0],
): { texts: T; redaction?: InputRedaction } {
  if (client && encryptionKeyId(client)) return { texts };
  const r = inputRedactor();
  const out: Record<string, string | undefined> = {};
  let count = 0;
  const found = new Set<string>();
  for (const [k, v] of Object.entries(texts)) {
    if (v === undefined) {
      out[k] = v;
      continue;
    }
    const red = r.redact(v);
    out[k] = red.text;
    if (!red.count) continue;
    count += red.count;
    const before = new Set(placeholdersIn(v));
    for (const p of placeholdersIn(red.text)) if (!before.has(p)) found.add(p);
  }
  if (!count) return { texts };
  const placeholders = [...found];
  return { texts: out as T, redaction: { count, placeholders, notice: inputRedactionNotice(count, placeholders) } };
}

/** One text, as redactUserTexts. */
export function redactUserText(text: string, client?: Parameters<typeof encryptionKeyId>[0]): { text: string; redaction?: InputRedaction } {
  const { texts, redaction } = redactUserTexts({ text }, client);
  return { text: texts.text, ...(redaction ? { redaction } : {}) };
}

/** The messages of a chat request (`hermes serve`): its system text, earlier messages and the new one, redacted. */
export function redactChatMessages<
  R extends { system?: string; earlier: Array<{ text: string }>; last: string; results?: Array<{ callId: string; content: string }> },
>(r: R, client?: Parameters<typeof encryptionKeyId>[0]): { request: R; redaction?: InputRedaction } {
  const texts: Record<string, string | undefined> = { system: r.system, last: r.last };
  r.earlier.forEach((m, i) => (texts[`earlier${i}`] = m.text));
  // A client tool's results are what the client typed into the conversation too.
  r.results?.forEach((m, i) => (texts[`result${i}`] = m.content));
  const { texts: out, redaction } = redactUserTexts(texts, client);
  if (!redaction) return { request: r };
  const earlier = r.earlier.map((m, i) => ({ ...m, text: out[`earlier${i}`]! }));
  const results = r.results?.map((m, i) => ({ ...m, content: out[`result${i}`]! }));
  return {
    request: { ...r, ...(r.system !== undefined ? { system: out.system } : {}), earlier, last: out.last!, ...(results ? { results } : {}) },
    redaction,
  };
}
