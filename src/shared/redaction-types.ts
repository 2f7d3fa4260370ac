// What the redaction rules share (src/shared/credentials.ts, src/security/redact.ts). Pure, workflow-safe.

export interface Redacted {
  text: string;
  /** Number of replacements. */
  count: number;
}

/** Every placeholder starts with this; no built-in rule matches a placeholder (redacting twice counts nothing). */
export const MARK = '[REDACTED';
export const mark = (kind: string) => `${MARK}:${kind}]`;
