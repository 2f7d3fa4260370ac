// One redactor for everything that leaves a worker: tool results, model replies and logs. A Temporal history is
// durable, replicated and readable by everyone with access to the namespace, so secrets are replaced before a
// result leaves the activity, never after. Pure string work (no I/O): the only input besides the text is the
// environment given at construction.
//
// What is replaced, in this order (the built-in rules never match a placeholder: redacting twice counts nothing):
// 1. literal values: the worker's environment variables whose name contains KEY, TOKEN, SECRET, PASSWORD,
//    PASSWD or CREDENTIAL (values of 8+ characters, also JSON- and URL-encoded) → [REDACTED:env:NAME], and
//    configured values → [REDACTED:value];
// 2. the built-in rules (src/shared/credentials.ts, shared with the memory workflow's validator): credential
//    shapes → [REDACTED:<kind>], secret-named assignments in any layout (src/shared/secret-assignments.ts) and
//    secrets named in prose → [REDACTED:secret];
// 3. configured patterns → [REDACTED:pattern].
//
// Every rule is linear (bounded scans, hand-written passes where a regex would rescan) and has a cheap
// prefilter, so a rule with no candidate in the output does not run: about 10-35 ms of CPU per MB of ordinary
// output (ls, code, docs), well under 250 ms per MB on inputs built to be slow (test/secret-patterns.test.ts).

import { applyRule, credentialRules, type Rule } from '../shared/credentials';
import { MARK, mark, type Redacted } from '../shared/redaction-types';

export interface RedactConfig {
  /** Extra regular expressions (source text, or /source/flags); every match becomes [REDACTED:pattern]. */
  patterns?: string[];
  /** Extra literal values; every occurrence becomes [REDACTED:value]. */
  values?: string[];
}

export interface RedactorOptions extends RedactConfig {
  /** The environment whose secret-named variables are redacted (the worker's, usually process.env). */
  env?: Record<string, string | undefined>;
}

export type { Redacted };

/** Names of environment variables whose values are secrets. */
export const SECRET_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
/** Shorter values are too likely to occur by chance (and too weak to be worth stealing). */
export const MIN_ENV_VALUE_LENGTH = 8;

/** `source` or `/source/flags` → a global regex. Throws on an invalid one. */
export function compilePattern(p: string): RegExp {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(p);
  const [source, flags] = m ? [m[1]!, m[2]!] : [p, ''];
  return new RegExp(source, flags.includes('g') ? flags : `${flags}g`);
}

/** The forms a secret value takes in output: as is, JSON-escaped, URL-encoded. */
function variants(v: string): string[] {
  const out = new Set([v, JSON.stringify(v).slice(1, -1)]);
  try {
    out.add(encodeURIComponent(v));
  } catch {
    // lone surrogate: no URL form
  }
  return [...out];
}

export class Redactor {
  /** Literal values, longest first (a value inside a longer one must not split it), with their placeholder. */
  private readonly literals: Array<{ value: string; placeholder: string }> = [];
  private readonly rules: Rule[];

  constructor(opts: RedactorOptions = {}) {
    const seen = new Set<string>();
    const add = (value: string, placeholder: string) => {
      if (!value || seen.has(value)) return;
      seen.add(value);
      this.literals.push({ value, placeholder });
    };
    for (const name of Object.keys(opts.env ?? {}).sort()) {
      const value = opts.env![name]?.trim();
      if (!value || value.length < MIN_ENV_VALUE_LENGTH || !SECRET_ENV_NAME.test(name)) continue;
      for (const v of variants(value)) add(v, mark(`env:${name}`));
    }
    for (const value of opts.values ?? []) for (const v of variants(value)) add(v, mark('value'));
    this.literals.sort((a, b) => b.value.length - a.value.length);
    const custom: Rule[] = (opts.patterns ?? []).map((p) => ({
      kind: 'pattern',
      re: compilePattern(p),
      // An empty match would put a placeholder between every two characters.
      replace: (m: string) => (m === '' || m.startsWith(MARK) ? m : mark('pattern')),
    }));
    this.rules = [...credentialRules(), ...custom];
  }

  /** How many literal values (with their encodings) this redactor looks for. */
  get literalCount(): number {
    return this.literals.length;
  }

  redact(input: string): Redacted {
    let text = input;
    let count = 0;
    for (const { value, placeholder } of this.literals) {
      if (!text.includes(value)) continue;
      const parts = text.split(value);
      count += parts.length - 1;
      text = parts.join(placeholder);
    }
    for (const rule of this.rules) {
      const r = applyRule(rule, text);
      text = r.text;
      count += r.count;
    }
    return { text, count };
  }

  /** Just the text. */
  text(input: string): string {
    return this.redact(input).text;
  }

  /**
   * A copy of `value` with every string in it redacted (objects, arrays and Errors walked to `depth`), for log
   * records. The original is not modified; values without anything to redact are returned as they are.
   */
  deep<T>(value: T, depth = 8, seen = new WeakSet<object>()): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (value === null || typeof value !== 'object' || depth <= 0 || seen.has(value)) return value;
    seen.add(value);
    if (value instanceof Error) return this.errorCopy(value, depth, seen) as T;
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((v: unknown) => {
        const r = this.deep(v, depth - 1, seen);
        if (r !== v) changed = true;
        return r;
      });
      return (changed ? out : value) as T;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return value; // Dates, Buffers, class instances: as they are
    let out: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const r = this.deep(v, depth - 1, seen);
      if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
    }
    return (out ?? value) as T;
  }

  /** A copy of an error (same prototype) whose own properties (message, stack, cause…) are redacted. */
  private errorCopy(err: Error, depth: number, seen: WeakSet<object>): Error {
    const props = Object.getOwnPropertyNames(err).map((k) => {
      const d = Object.getOwnPropertyDescriptor(err, k)!;
      const redacted = 'value' in d ? this.deep(d.value as unknown, depth - 1, seen) : undefined;
      return { k, d, changed: 'value' in d && redacted !== d.value, redacted };
    });
    if (!props.some((p) => p.changed)) return err;
    const copy = Object.create(Object.getPrototypeOf(err) as object) as Error;
    for (const { k, d, changed, redacted } of props) Object.defineProperty(copy, k, changed ? { ...d, value: redacted } : d);
    return copy;
  }

  /**
   * The same error with message, stack and cause redacted in place (so `instanceof` and Temporal's failure
   * conversion still work): what a thrown failure would otherwise carry into history.
   */
  error<E extends Error>(err: E, depth = 8, seen = new WeakSet<object>()): E {
    seen.add(err);
    const message = this.text(err.message);
    const stack = err.stack === undefined ? undefined : this.text(err.stack);
    const rawCause = (err as { cause?: unknown }).cause;
    const cause = rawCause === undefined ? undefined : this.deep(rawCause, depth - 1, seen);
    if (message === err.message && stack === err.stack && cause === rawCause) return err;
    err.message = message;
    if (stack !== undefined) err.stack = stack;
    if (cause !== rawCause) (err as { cause?: unknown }).cause = cause;
    return err;
  }
}
