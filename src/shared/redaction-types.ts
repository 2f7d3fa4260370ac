// What the redaction rules share (src/shared/credentials.ts, src/security/redact.ts). Pure, workflow-safe.

export interface Redacted {
  text: string;
  /** Number of replacements. */
  count: number;
}

/** Every placeholder starts with this; no built-in rule matches a placeholder (redacting twice counts nothing). */
export const MARK = '[REDACTED';
export const mark = (kind: string) => `${MARK}:${kind}]`;

/** A placeholder as the redactor writes it: [REDACTED:openai-key], [REDACTED:env:NAME], [REDACTED:secret]… */
const PLACEHOLDER = /\[REDACTED:[A-Za-z0-9_.:-]{1,80}\]/g;

/** The distinct placeholders in the strings of `value` (objects and arrays walked, bounded depth). */
export function placeholdersIn(value: unknown, depth = 8): string[] {
  const found = new Set<string>();
  const walk = (v: unknown, d: number) => {
    if (typeof v === 'string') {
      if (v.includes('[REDACTED:')) for (const m of v.matchAll(PLACEHOLDER)) found.add(m[0]);
    } else if (v && typeof v === 'object' && d > 0) for (const x of Object.values(v)) walk(x, d - 1);
  };
  walk(value, depth);
  return [...found];
}
