// Text a tool shows while it runs (heartbeat details: the Web UI's pending-activity card, `describe()`, and the
// history when the call times out). Redacted first and cut after: a secret cut in half is one the redactor no
// longer recognises.
export const SHOWN_CHARS = 200;

export function cut(text: string, max = SHOWN_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `text` redacted, on one line, cut to `max` characters. */
export function shown(text: string, redact: ((text: string) => string) | undefined, max = SHOWN_CHARS): string {
  return cut((redact ? redact(text) : text).replace(/\s+/g, ' ').trim(), max);
}
