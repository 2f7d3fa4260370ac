// The built-in redaction rules: credential shapes, secret-named assignments and secrets named in prose. Pure
// string work with no environment, so the worker's redactor (src/security/redact.ts) and the memory workflow's
// validator (src/workflows/memory.ts, which refuses a write that still holds a credential) share one definition.
//
// Every rule is linear: character classes that cannot overlap their delimiters, bounded lazy scans, hand-written
// passes where a regex would rescan (PEM blocks and ends, assignments, AWS secrets in context), and a cheap prefilter so a
// rule with no candidate in the text does not run. No rule matches a placeholder: redacting twice counts nothing.

import { MARK, mark, type Redacted } from './redaction-types';
import { redactEncodedSecrets } from './encoded-secrets';
import { redactSecretAssignments } from './secret-assignments';

export type Rule = {
  kind: string;
  /** Cheap test before the rule runs: it is skipped when this returns false. */
  pre?: (text: string) => boolean;
} & (
  | {
      re: RegExp;
      /** The replacement for one match (the arguments String.replace passes); the match itself to keep it. */
      replace: (m: string, ...groups: string[]) => string;
    }
  | {
      /** A hand-written pass, for what a regex cannot do in linear time. */
      apply: (text: string) => Redacted;
    }
);

const hasDigit = (s: string) => /\d/.test(s);
const hasLetter = (s: string) => /[A-Za-z]/.test(s);
const includesAny =
  (...needles: string[]) =>
  (text: string) =>
    needles.some((n) => text.includes(n));

/** One rule over a text: the result and how many matches it replaced. */
export function applyRule(rule: Rule, text: string): Redacted {
  if (rule.pre && !rule.pre(text)) return { text, count: 0 };
  if ('apply' in rule) return rule.apply(text);
  let count = 0;
  rule.re.lastIndex = 0;
  const out = text.replace(rule.re, (...args: unknown[]) => {
    const m = args[0] as string;
    const r = rule.replace(m, ...(args.slice(1, -2) as string[]));
    if (r !== m) count++;
    return r;
  });
  return count ? { text: out, count } : { text, count: 0 };
}

const BEGIN_MARKER = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;
const END_MARKER = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;
/** What an unterminated block's body may hold (from BEGIN to the end of its base64). */
const PEM_REST = /[A-Za-z0-9+/=\s\\:,.|-]*/y;
const PEM_MAX_BODY = 32768;

/**
 * Each block from its BEGIN to its END when one follows within 32 KB, else to the end of its body. The next END is
 * looked up once and kept while BEGINs come before it: a lazy regex scan of 32 KB per BEGIN was quadratic up to
 * 32 KB, then 32,768 steps a BEGIN (a text of many BEGINs and no END: seconds).
 */
function privateKeyBlocks(text: string): Redacted {
  let out = '';
  let last = 0;
  let count = 0;
  let end: RegExpExecArray | null | undefined; // undefined: not looked up yet; null: there is none
  BEGIN_MARKER.lastIndex = 0;
  for (let m = BEGIN_MARKER.exec(text); m; m = BEGIN_MARKER.exec(text)) {
    const body = m.index + m[0].length;
    if (end === undefined || (end && end.index < body)) {
      END_MARKER.lastIndex = body;
      end = END_MARKER.exec(text);
    }
    let stop: number;
    if (end && end.index - body <= PEM_MAX_BODY) stop = end.index + end[0].length;
    else {
      PEM_REST.lastIndex = body;
      PEM_REST.exec(text);
      stop = PEM_REST.lastIndex;
    }
    out += `${text.slice(last, m.index)}${mark('private-key')}`;
    last = stop;
    count++;
    BEGIN_MARKER.lastIndex = stop;
  }
  return count ? { text: out + text.slice(last), count } : { text, count: 0 };
}
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

/** [A-Za-z0-9/+=] by char code: a loop over the text, no match object per word. */
function isBase64Char(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 47 || c === 43 || c === 61;
}
/** Near an AWS secret: its name, the word secret, or an access key id (by then its placeholder, which says aws). */
const AWS_CONTEXT = /aws|secret/i;

/**
 * A bare AWS secret access key (in prose, a CSV of credentials, an answer) is a run of exactly 40 base64
 * characters with upper and lower case and a digit, / or +; it counts when "aws", "secret" or an access key id
 * is within 100 characters before it or 40 after. A git SHA (hex, one case) never qualifies.
 */
function awsSecretsInContext(text: string): Redacted {
  let count = 0;
  let out = '';
  let last = 0;
  let i = 0;
  while (i < text.length) {
    if (!isBase64Char(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isBase64Char(text.charCodeAt(i))) i++;
    if (i - start !== 40) continue;
    const s = text.slice(start, i);
    if (s.includes('=') || !/[A-Z]/.test(s) || !/[a-z]/.test(s) || !/[0-9/+]/.test(s)) continue;
    const near = text.slice(Math.max(last, start - 100), start) + ' ' + text.slice(i, i + 40);
    if (!AWS_CONTEXT.test(near)) continue;
    out += text.slice(last, start) + mark('aws-secret-key');
    last = i;
    count++;
  }
  return count ? { text: out + text.slice(last), count } : { text, count: 0 };
}

/** The first rule that finds something in `decoded` (the rules on plain text), for the encoded-secrets rule. */
function plainKind(decoded: string): string | undefined {
  for (const rule of PLAIN_RULES) if (applyRule(rule, decoded).count) return rule.kind;
  return undefined;
}

/** The credential shapes, most specific first; then secret-named assignments, then secrets named in prose. */
const PLAIN_RULES: Rule[] = [
  {
    // The whole block; an unterminated one (cut output) up to the end of its base64 body.
    kind: 'private-key',
    pre: includesAny('PRIVATE KEY'),
    apply: privateKeyBlocks,
  },
  {
    // The end of a block whose beginning was cut off (paged read, head/tail truncation): the body before it.
    kind: 'private-key',
    pre: includesAny('-----END '),
    apply: orphanKeyEnds,
  },
  {
    // Only where a token starts: from every `eyJ` inside a run of token characters, the run was scanned again.
    kind: 'jwt',
    re: /(?<![\w-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
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
    kind: 'gitlab-token',
    re: /\bglpat-[A-Za-z0-9_-]{20,}/g,
    pre: includesAny('glpat-'),
    replace: () => mark('gitlab-token'),
  },
  {
    kind: 'npm-token',
    re: /\bnpm_[A-Za-z0-9]{36}\b/g,
    pre: includesAny('npm_'),
    replace: () => mark('npm-token'),
  },
  {
    // Secret and restricted keys, live or test, and webhook signing secrets; publishable keys (pk_) are public.
    kind: 'stripe-key',
    re: /\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{20,})/g,
    pre: (t) => /[sr]k_(?:live|test)_|whsec_/.test(t),
    replace: () => mark('stripe-key'),
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
    // …and next to an AWS-ish word or an access key id (prose, CSV): after the id rule, whose placeholder says aws.
    kind: 'aws-secret-key',
    pre: (t) => AWS_CONTEXT.test(t),
    apply: awsSecretsInContext,
  },
  {
    kind: 'slack-token',
    re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
    pre: includesAny('xox'),
    replace: () => mark('slack-token'),
  },
  {
    // Incoming webhooks: the URL is the credential; the host stays readable.
    kind: 'slack-webhook',
    re: /(hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9/_-]{8,}/g,
    pre: includesAny('hooks.slack.com/'),
    replace: (_m, head) => `${head}${mark('slack-webhook')}`,
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
    // NAME=value, name: value, "name": "value", name = value … wherever in a line (src/shared/secret-assignments.ts).
    kind: 'secret',
    pre: (t) => /key|token|secret|pass|pwd|credential/i.test(t),
    apply: redactSecretAssignments,
  },
  {
    // .netrc: `machine host login user password p4ss` (a name, a space, the value: no separator to find).
    kind: 'secret',
    re: /^([ \t]*(?:machine|default)\b[^\n]{0,512}?[ \t]password[ \t]+)([^\s]+)/gm,
    pre: (t) => t.includes('password') && /(?:^|\n)[ \t]*(?:machine|default)\b/.test(t),
    replace: (m, head, value) => (value.startsWith(MARK) ? m : `${head}${mark('secret')}`),
  },
  {
    // Prose: "the db password is Tr0ub4dor&3xyz", "the password for prod was …", "the password for prod: …",
    // "db password Hunter2-xyz" (password words only: no verb), "API key: k3y…" (a two-word name with a colon;
    // one-word names with = or : are assignments, above). The value must mix letters and digits (8+) and not be
    // code, so "the password is required", "password reset" and "the token was refreshed" stay.
    kind: 'secret',
    re: /\b((?:pass(?:word|phrase)?s?|passwd|pwd|secrets?|tokens?|(?:api|access|secret|private)[ _-]?keys?)(?:(?:[ \t]+(?:for|of|on|in|to)[ \t]+[^\s]{1,40})?[ \t]+(?:is|was|are|were|reads)[ \t]+|[ \t]+(?:for|of|on|in|to)[ \t]+[^\s:]{1,40}:[ \t]*)["'`]?|(?:api|access|secret|private)[ -]keys?[ \t]*[:=][ \t]*["'`]?|(?:pass(?:word|phrase)s?|passwd)[ \t]+["'`]?)(?!\[REDACTED)(?=[^\s"'`]{0,200}?\d)([^\s"'`]{8,200})/gi,
    pre: (t) => /pass|pwd|secret|token|key/i.test(t),
    replace: (m, head, value) => {
      const trail = /[.,;:!?)\]]*$/.exec(value)![0];
      const v = value.slice(0, value.length - trail.length);
      if (v.length < 8 || !hasLetter(v) || /^(?:\$|[/~]|[a-z][a-z0-9+.-]*:\/\/)|^[A-Za-z_$][\w$.]*\(/i.test(v)) return m;
      return `${head}${mark('secret')}${trail}`;
    },
  },
];

/**
 * The built-in rules: first base64 and hex runs whose decoded text the plain rules find a secret in (before those
 * rules, which would otherwise take a part of the run for a token), then the plain rules. Not exported as such: the
 * workflow bundle preloads this module and deep-freezes its exports (src/workflows/engine/preload.ts), and a frozen
 * `/g` regex throws when a replace resets its lastIndex.
 */
const CREDENTIAL_RULES: readonly Rule[] = [{ kind: 'encoded', apply: (t) => redactEncodedSecrets(t, plainKind) }, ...PLAIN_RULES];

/** The built-in rules, for a redactor that adds its own. */
export function credentialRules(): readonly Rule[] {
  return CREDENTIAL_RULES;
}

/** `text` with what the built-in rules find replaced (no environment values: those only the worker knows). */
export function redactCredentials(text: string): Redacted {
  let t = text;
  let count = 0;
  for (const rule of CREDENTIAL_RULES) {
    const r = applyRule(rule, t);
    t = r.text;
    count += r.count;
  }
  return { text: t, count };
}

/**
 * The kinds of credential the built-in rules find in `text` (empty: none). For code that must refuse rather
 * than redact, such as the memory workflow's validator.
 */
export function credentialKinds(text: string): string[] {
  const kinds = new Set<string>();
  let t = text;
  for (const rule of CREDENTIAL_RULES) {
    const r = applyRule(rule, t);
    if (r.count) kinds.add(rule.kind);
    t = r.text;
  }
  return [...kinds];
}
