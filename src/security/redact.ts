// One redactor for everything that leaves a worker: tool results, model replies and logs. A Temporal history is
// durable, replicated and readable by everyone with access to the namespace, so secrets are replaced before a
// result leaves the activity, never after. Pure string work (no I/O): the only input besides the text is the
// environment given at construction.
//
// What is replaced, in this order (the built-in rules never match a placeholder: redacting twice counts nothing):
// 1. literal values: the worker's environment variables whose name contains KEY, TOKEN, SECRET, PASSWORD,
//    PASSWD or CREDENTIAL (values of 8+ characters, also JSON- and URL-encoded) → [REDACTED:env:NAME], and
//    configured values → [REDACTED:value];
// 2. credential shapes → [REDACTED:<kind>] (see SHAPES);
// 3. configured patterns → [REDACTED:pattern].
//
// Every regex is linear: character classes that cannot overlap their delimiters, bounded lazy scans, and a cheap
// prefilter (String.includes) so a rule with no candidate in the output does not run (about 5-10 ms per MB).

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

export interface Redacted {
  text: string;
  /** Number of replacements. */
  count: number;
}

/** Names of environment variables whose values are secrets. */
export const SECRET_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
/** Shorter values are too likely to occur by chance (and too weak to be worth stealing). */
export const MIN_ENV_VALUE_LENGTH = 8;

const MARK = '[REDACTED';
const mark = (kind: string) => `${MARK}:${kind}]`;
const hasDigit = (s: string) => /\d/.test(s);
const hasLetter = (s: string) => /[A-Za-z]/.test(s);

interface Rule {
  kind: string;
  re: RegExp;
  /** Instead of re: a hand-written pass (for what a regex cannot do in linear time). */
  apply?: (text: string) => Redacted;
  /** Cheap test before the regex runs: the rule is skipped when it returns false. */
  pre?: (text: string) => boolean;
  /** The replacement for one match (the arguments String.replace passes); the match itself to keep it. */
  replace: (m: string, ...groups: string[]) => string;
}

const includesAny =
  (...needles: string[]) =>
  (text: string) =>
    needles.some((n) => text.includes(n));

/** A name that holds a secret in a KEY=value line: a word of it ends in one of the secret words. */
const SECRET_ASSIGNMENT_NAME = /(?:^|_)[A-Z0-9]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(?:_|$)/i;

/** The credential shapes, most specific first. */
const SHAPES: Rule[] = [
  {
    // The whole block; an unterminated one (cut output) up to the end of its base64 body.
    kind: 'private-key',
    re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,32768}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,.|-]*)/g,
    pre: includesAny('PRIVATE KEY'),
    replace: () => mark('private-key'),
  },
  {
    // The end of a block whose beginning was cut off (paged read, head/tail truncation): the body before it.
    kind: 'private-key',
    re: /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g,
    pre: includesAny('-----END '),
    replace: (m) => m,
    apply: (text) => orphanKeyEnds(text),
  },
  {
    kind: 'jwt',
    re: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
    pre: includesAny('eyJ'),
    replace: () => mark('jwt'),
  },
  {
    // OpenAI (sk-…, sk-proj-…, sk-svcacct-…) and Anthropic (sk-ant-…); real keys always carry a digit.
    kind: 'openai-key',
    re: /\bsk-(ant-)?[A-Za-z0-9_-]{20,}/g,
    pre: includesAny('sk-'),
    replace: (m, ant) => (hasDigit(m.slice(3)) ? mark(ant ? 'anthropic-key' : 'openai-key') : m),
  },
  {
    kind: 'github-token',
    re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b/g,
    pre: (t) => /gh[pousr]_|github_pat_/.test(t),
    replace: () => mark('github-token'),
  },
  {
    kind: 'aws-access-key-id',
    re: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
    pre: includesAny('AKIA', 'ASIA'),
    replace: () => mark('aws-access-key-id'),
  },
  {
    // The 40-character secret after its name (env, ini, toml, JSON "SecretAccessKey").
    kind: 'aws-secret-key',
    re: /((?:aws_?)?secret_?access_?key["']?[ \t]*[:=][ \t]*["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    pre: (t) => /secret_?access_?key/i.test(t),
    replace: (_m, name) => `${name}${mark('aws-secret-key')}`,
  },
  {
    kind: 'slack-token',
    re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
    pre: includesAny('xox'),
    replace: () => mark('slack-token'),
  },
  {
    kind: 'google-api-key',
    re: /\bAIza[A-Za-z0-9_-]{30,}/g,
    pre: includesAny('AIza'),
    replace: () => mark('google-api-key'),
  },
  {
    // scheme://user:PASSWORD@host keeps the user and the host; $VARS stay (they are not the secret).
    kind: 'url-password',
    // Anchored on the literal "://" (the scheme needs no matching: it is kept anyway), so the scan is fast.
    re: /(:\/\/[^\s:/?#@"'<>]*:)([^\s@/?#"'<>]+)@/g,
    pre: includesAny('://'),
    replace: (m, head, pw) => (pw.startsWith('$') || pw.startsWith(MARK) ? m : `${head}${mark('url-password')}@`),
  },
  {
    // Authorization: <scheme> <credentials>, as a header, in curl -H, in JSON. A value without a scheme must
    // look like a credential (a digit in it), so `authorization: AuthHeader` in code stays.
    kind: 'authorization',
    re: /\b(authorization["']?[ \t]*[:=][ \t]*["']?)((?:(?:bearer|basic|token|digest|negotiate|bot)[ \t]+)?)([^\s"'\\,;]{8,})/gi,
    pre: (t) => /authorization/i.test(t),
    replace: (m, head, scheme, value) =>
      value.startsWith('$') || value.startsWith(MARK) || (!scheme && !hasDigit(value)) ? m : `${head}${scheme}${mark('authorization')}`,
  },
  {
    kind: 'bearer',
    re: /\b([Bb]earer[ \t]+)([A-Za-z0-9._~+/=-]{8,})/g,
    pre: (t) => /[Bb]earer/.test(t),
    replace: (m, head, token) => (hasDigit(token) && hasLetter(token) ? `${head}${mark('bearer')}` : m),
  },
  {
    // .env / shell lines: NAME=value where a word of NAME is KEY, TOKEN, SECRET, PASSWORD… (not paths, not $VARS).
    kind: 'secret-assignment',
    re: /^([ \t]*(?:export[ \t]+)?)([A-Za-z_][A-Za-z0-9_.-]{0,127})=(["']?)([^\s"'$`\\(){}[\]<>;|&]{8,})(?=["']?(?:[ \t]|$))/gm,
    pre: includesAny('='),
    replace: (m, lead, name, quote, value) =>
      !SECRET_ASSIGNMENT_NAME.test(name) || value.includes(MARK) || /^[/~.]/.test(value) ? m : `${lead}${name}=${quote}${mark('secret')}`,
  },
];

const END_MARKER = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;
/** Characters of a PEM body, also with line numbers (read_file's "  7| ", cat -n) and JSON's \n escapes. */
const PEM_BODY = /[A-Za-z0-9+/=\s\\|:,.-]/;

/**
 * END markers left after the whole blocks were replaced have lost their BEGIN: replace each with the body
 * before it, found by walking back over body characters (linear: a regex would rescan the body at every start).
 */
function orphanKeyEnds(text: string): Redacted {
  let count = 0;
  let out = '';
  let last = 0;
  END_MARKER.lastIndex = 0;
  for (let m = END_MARKER.exec(text); m; m = END_MARKER.exec(text)) {
    let start = m.index;
    const floor = Math.max(last, m.index - 16384);
    while (start > floor && PEM_BODY.test(text[start - 1]!)) start--;
    // Keep the line break (and a read_file line number) that precede the body's first line.
    while (start < m.index && /[\s\d|]/.test(text[start]!)) start++;
    out += `${text.slice(last, start)}${mark('private-key')}`;
    last = m.index + m[0].length;
    count++;
  }
  return count ? { text: out + text.slice(last), count } : { text, count: 0 };
}

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
    this.rules = [...SHAPES, ...custom];
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
      if (rule.pre && !rule.pre(text)) continue;
      if (rule.apply) {
        const r = rule.apply(text);
        text = r.text;
        count += r.count;
        continue;
      }
      rule.re.lastIndex = 0;
      text = text.replace(rule.re, (...args: unknown[]) => {
        const m = args[0] as string;
        const out = rule.replace(m, ...(args.slice(1, -2) as string[]));
        if (out !== m) count++;
        return out;
      });
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
