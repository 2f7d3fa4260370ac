// Secret-named assignments, found by meaning rather than by line layout: NAME=value (.env, shell, properties,
// flags), export NAME="value", name: value (YAML, headers), "name": "value" (JSON), name = value (TOML, INI),
// ?token=value (query strings) — wherever they are in a line, so a tool's line prefix (read_file's "   6| ",
// search_files' "file:6: ", grep's "6:") or indentation changes nothing. Pure string work, workflow-safe.
//
// Linear time: a trigger word (key, token, secret, pass, pwd, credential) is found by a regex; the name around it
// and the value after it are read with bounded loops, and the search resumes after what was read.
//
// False positives are kept low by meaning, not by layout:
// - names: a word of the name must be a secret word (`DB_PASSWORD`, `apiKey`, `x-api-key`, `PGPASSWORD`,
//   `spring.datasource.password`, `_authToken`), and the last word must not say the value is about the secret
//   rather than the secret (`TOKEN_FILE`, `password_hash`, `keyId`, `max_tokens`: `tokens` is not a secret word);
//   a bare `key` needs a credential-like value (`partition_key: user_id` stays), `public_key` is not secret;
// - values: 8+ characters; not a reference or template (`$VAR`, `${{ … }}`, `{{ … }}`, `%(x)s`, `<your key>`),
//   a path, a URL (passwords in URLs have their own rule), a keyword (`null`, `true`), a mask (`********`), or
//   code (`os.environ["X"]`, `getpass()`, `process.env.X`, `req.body.password`, `password = other_var`,
//   `token: accessToken,`). Quoted values are literals: only templates, references and placeholders stay.

import { MARK, mark, type Redacted } from './redaction-types';

const TRIGGER = /key|token|secret|pass|pwd|credential/gi;
/** [A-Za-z0-9_.-] by char code (this runs for every character of a name: a regex test per character costs 10×). */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45;
}
const MAX_NAME = 128;
const MAX_VALUE = 1024;
const MIN_VALUE = 8;

/** The secret word ends the word: `pgpassword`, `authtoken`, `clientsecret`. */
const ENDS_SECRET = /(?:token|secret|password|passwd|passphrase|credentials?)$/;
/** Whole words only: `pass` is not `passport`, `pwd` is not `oldpwd`. */
const EXACT_SECRET = new Set(['pass', 'pwd']);
/** `<prefix>key` / `<prefix>_key` names that hold a secret. */
const SECRET_KEY_PREFIXES = new Set(
  (
    'api secret private access master encryption encrypt signing sign auth client app license session server service ' +
    'deploy webhook hmac crypto cipher aes consumer subscription account admin root storage sas ssh gpg jwt'
  ).split(' '),
);
/** `<word>_key` names that are not secrets (or not secret). */
const PLAIN_KEY_PREFIXES = new Set(
  'public primary foreign sort partition range hash cache idempotency routing lookup map dict unique composite row object group translation i18n'.split(
    ' ',
  ),
);
/** A last word that says the value is about the secret, not the secret. */
const NOT_THE_VALUE = new Set(
  (
    'file path dir url uri name id ids len length size ttl expiry expires expiration timeout count limit min max type ' +
    'format header field param env var location region alg algorithm rotation version prefix hint label policy mode ' +
    'enabled required ref endpoint host port user username hash salt rounds reset changed updated at index'
  ).split(' '),
);
const KEYWORDS = new Set(['null', 'none', 'nil', 'undefined', 'true', 'false', 'yes', 'no', 'on', 'off', 'required', 'optional']);

/** The words of a name: split at _ . - and camelCase humps, lower case. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);
}

type NameKind = 'secret' | 'key' | undefined;
/** Names repeat (a log, a config file): their verdicts are remembered, up to a bound. */
const nameKinds = new Map<string, NameKind>();

/** 'secret' when the name says its value is a secret; 'key' for a generic key (the value must look like one). */
export function secretNameKind(name: string): NameKind {
  if (nameKinds.has(name)) return nameKinds.get(name);
  if (nameKinds.size >= 1024) nameKinds.clear();
  const kind = nameKindOf(name);
  nameKinds.set(name, kind);
  return kind;
}

function nameKindOf(name: string): NameKind {
  const w = words(name);
  if (!w.length || NOT_THE_VALUE.has(w[w.length - 1]!)) return undefined;
  let kind: NameKind;
  for (let i = 0; i < w.length; i++) {
    const word = w[i]!;
    if (ENDS_SECRET.test(word) || EXACT_SECRET.has(word)) return 'secret';
    if (word === 'key') {
      const before = w[i - 1];
      if (before && SECRET_KEY_PREFIXES.has(before)) return 'secret';
      if (!before || !PLAIN_KEY_PREFIXES.has(before)) kind = 'key';
    } else if (word.endsWith('key') && SECRET_KEY_PREFIXES.has(word.slice(0, -3))) return 'secret';
  }
  return kind;
}

const IDENT = /^[A-Za-z_$][\w$]*$/;
/** Member access without digits: `process.env.X`, `config.db.password`, `self.token`, `Config::KEY`. */
const MEMBER_CHAIN = /^[A-Za-z_$][A-Za-z_$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][A-Za-z_$]*)+$/;
/** A call or an index: `getpass(`, `os.environ[`, `secrets.token_hex(16)`. */
const CALL = /^[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$]*)*[([]/;

/** References and templates ($VAR, ${…}, ${{ … }}, {{ … }}, %(x)s, <your token>), paths, URLs (their passwords have their own rule). */
const NOT_LITERAL = /^(?:\$|%\(|\{\{|[/~]|\.\.?\/|[a-z][a-z0-9+.-]*:\/\/)|^<[^>]*>$/i;

interface ValueContext {
  kind: 'secret' | 'key';
  quoted: boolean;
  /** `name = value`: an assignment in code, or INI. */
  spacedEquals: boolean;
  colon: boolean;
}

/** True when `value` (what follows the separator, quotes removed) is the secret itself. */
export function isSecretValue(value: string, c: ValueContext): boolean {
  if (value.length < MIN_VALUE || value.includes(MARK)) return false;
  if (NOT_LITERAL.test(value)) return false;
  if ((value.length <= 9 && KEYWORDS.has(value.toLowerCase())) || /^(.)\1*$/.test(value)) return false; // null, true, ********
  if (!c.quoted) {
    if (/^[{[(]/.test(value)) return false; // a structure: { type: String }, [ … ]
    const bare = value.replace(/[,;!)\]}]+$/, '');
    if (MEMBER_CHAIN.test(bare) || CALL.test(bare)) return false;
    // A variable: `password = hashed` (code; INI with spaces and a plain word is taken as code too), `token: t,`.
    if ((c.spacedEquals || /[,;]$/.test(value)) && IDENT.test(bare) && !/\d/.test(bare)) return false;
    if (c.colon && /^[A-Z][a-z]+$/.test(bare)) return false; // "Password: Required"
  }
  if (c.kind === 'key') return value.length >= 16 && /^[A-Za-z0-9_+/=-]+$/.test(value) && /\d/.test(value) && /[A-Za-z]/.test(value);
  return true;
}

/** Where an unquoted value ends: whitespace, a quote, an escape sequence of a serialised string. */
function unquotedEnd(text: string, from: number, query: boolean): number {
  const limit = Math.min(text.length, from + MAX_VALUE);
  let j = from;
  for (; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c === 32 || c === 9 || c === 10 || c === 13) break; // space, \t, \n, \r
    // A quote closes the value ('password=x' -d …, "DB_PASSWORD=x",) unless the value goes on after it (O'Brien9).
    if ((c === 34 || c === 39 || c === 96) && !/[^\s,;)\]}>&"'`]/.test(text[j + 1] ?? ' ')) break;
    if (c === 92 && /[nrt"'\\]/.test(text[j + 1] ?? '')) break; // an escape sequence: \n \" …
    if (query && (c === 38 || c === 35)) break; // & #
  }
  return j;
}

/** The end of a quoted value (index of its closing quote), or -1 when it does not close on this line. */
function quotedEnd(text: string, from: number, quote: string): number {
  const limit = Math.min(text.length, from + MAX_VALUE);
  for (let j = from; j < limit; j++) {
    const ch = text[j]!;
    if (ch === '\n') return -1;
    if (quote === '\\"') {
      if (ch === '\\' && text[j + 1] === '"') return j;
    } else if (ch === '\\') j++;
    else if (ch === quote) return j;
  }
  return -1;
}

/** Replaces the value of every secret-named assignment with [REDACTED:secret]. */
export function redactSecretAssignments(text: string): Redacted {
  let out = '';
  let last = 0; // text before this is in `out`
  let floor = 0; // a name never reaches back before this (what an earlier match read)
  let count = 0;
  TRIGGER.lastIndex = 0;
  for (let m = TRIGGER.exec(text); m; m = TRIGGER.exec(text)) {
    const at = m.index;
    let end = at + m[0].length;
    while (end < text.length && end - at < MAX_NAME && isNameChar(text.charCodeAt(end))) end++;
    TRIGGER.lastIndex = end;
    // The separator: an optional closing quote of a JSON/dict key, spaces, then = : or :=.
    let j = end;
    const keyQuote = text[j] === '"' || text[j] === "'" ? text[j] : text[j] === '\\' && text[j + 1] === '"' ? '\\"' : '';
    j += keyQuote.length;
    const beforeSep = j;
    while (text[j] === ' ' || text[j] === '\t') j++;
    const spaced = j > beforeSep;
    const sep = text[j];
    if (sep !== '=' && sep !== ':') continue;
    const next = text[j + 1];
    if (sep === '=' && (next === '=' || next === '>' || next === '~')) continue; // ==, =>, =~
    if (sep === ':' && next === ':') continue; // Foo::Bar
    j += sep === ':' && next === '=' ? 2 : 1;
    let start = at;
    const lowest = Math.max(floor, at - MAX_NAME);
    while (start > lowest && isNameChar(text.charCodeAt(start - 1))) start--;
    if (start === lowest && start > 0 && isNameChar(text.charCodeAt(start - 1))) continue; // longer than any name
    while (text[start] === '-' || text[start] === '.') start++; // --password, .password
    const name = text.slice(start, end);
    const kind = secretNameKind(name);
    if (!kind) continue;
    const query = sep === '=' && (text[start - 1] === '?' || text[start - 1] === '&');
    const afterSep = j;
    while (text[j] === ' ' || text[j] === '\t') j++;
    const spacedAfter = j > afterSep;
    const q = text[j] === '"' || text[j] === "'" || text[j] === '`' ? text[j]! : text[j] === '\\' && text[j + 1] === '"' ? '\\"' : '';
    const vStart = j + q.length;
    let vEnd: number;
    let value: string;
    if (q) {
      const close = quotedEnd(text, vStart, q);
      vEnd = close >= 0 ? close : unquotedEnd(text, vStart, false);
      value = text.slice(vStart, vEnd);
    } else {
      vEnd = unquotedEnd(text, vStart, query);
      value = text.slice(vStart, vEnd);
      // A trailing , or ; stays visible (code, JSON-ish structure); isSecretValue sees it (a sign of code).
      while (vEnd > vStart && (text[vEnd - 1] === ',' || text[vEnd - 1] === ';')) vEnd--;
    }
    floor = Math.max(vEnd, j);
    TRIGGER.lastIndex = Math.max(TRIGGER.lastIndex, floor);
    const ctx = { kind, quoted: q !== '', spacedEquals: sep === '=' && spaced && spacedAfter, colon: sep === ':' };
    if (vEnd <= vStart || !isSecretValue(value, ctx)) continue;
    out += text.slice(last, vStart) + mark('secret');
    last = vEnd;
    count++;
  }
  return count ? { text: out + text.slice(last), count } : { text, count: 0 };
}
