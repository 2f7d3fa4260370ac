// Secret material in base64 or hex: `base64 .env`, a Kubernetes Secret's data, `xxd -p` of a key file, a key
// pasted encoded. A run of encoded characters (also wrapped over lines, as `base64` prints it) is decoded and the
// other built-in rules look at the decoded text; when they find something, the whole run becomes
// [REDACTED:base64:<kind>] or [REDACTED:hex:<kind>]. Pure string work (no Buffer, no atob), workflow-safe.
//
// Bounded: a run is decoded up to MAX_RUN characters, a text up to MAX_DECODED in all, each character is read
// once by the scan, and decoding stops at the first stretch that is not text (binary data, a PEM body, a hash,
// an identifier that happens to be made of base64 letters), so the rules run only on decoded text.

import { mark, type Redacted } from './redaction-types';

/** Shorter runs hold too little to be a name and a value, or a credential. */
const MIN_RUN = 20;
/** Characters of one run that are decoded; what follows in a longer run is not looked at. */
const MAX_RUN = 64 * 1024;
/** Characters decoded per text, over all its runs. */
const MAX_DECODED = 4 * 1024 * 1024;
/** A line of a wrapped encoding is at least this long (base64 wraps at 76, PEM at 64, xxd -p at 60). */
const MIN_WRAPPED_LINE = 60;

/** The value of each base64 and base64url letter by char code; -1 for every other code up to 0xffff. */
const B64 = new Int8Array(65536).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => (B64[c.charCodeAt(0)] = i));
B64['-'.charCodeAt(0)] = 62; // base64url
B64['_'.charCodeAt(0)] = 63;

const isLetter = (c: number) => B64[c]! >= 0; // base64(url) letters, hex digits among them
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
/** Printable ASCII, tab, line feed, carriage return. */
const isTextByte = (b: number) => (b >= 32 && b < 127) || b === 9 || b === 10 || b === 13;

/** The decoded text, or undefined when it is not mostly text (a stray byte in 20 is allowed: UTF-8, a BOM). */
function decodeText(bytes: number[]): string | undefined {
  let bad = 0;
  for (const b of bytes) if (!isTextByte(b) && ++bad * 20 > bytes.length) return undefined;
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.slice(i, i + 8192));
  return out;
}

function decodeHex(s: string): string | undefined {
  const bytes: number[] = [];
  for (let i = 0; i + 1 < s.length; i += 2) bytes.push(parseInt(s.slice(i, i + 2), 16));
  return decodeText(bytes);
}

function decodeBase64(s: string): string | undefined {
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    acc = ((acc << 6) | B64[c]!) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const b = (acc >> bits) & 0xff;
      // Give up early on binary data (the common case: a hash, a PEM body), before the whole run is decoded.
      if (bytes.length === 32 && decodeText(bytes) === undefined) return undefined;
      bytes.push(b);
    }
  }
  return decodeText(bytes);
}

/** One encoded run: where it is in the text and its characters without the line breaks. */
interface Run {
  start: number;
  end: number;
  data: string;
}

/** The run that starts at `start`: letters, up to two = of padding, over the line breaks of a wrapped encoding. */
function readRun(text: string, start: number): Run {
  let i = start;
  let data = '';
  for (;;) {
    const line = i;
    while (i < text.length && isLetter(text.charCodeAt(i))) i++;
    const letters = i - line;
    if (data.length < MAX_RUN) data += text.slice(line, i);
    if (text[i] === '=') {
      i += text[i + 1] === '=' ? 2 : 1;
      break;
    }
    // A wrapped encoding: a long line of even length (a multiple of 4 in base64), more letters after the break.
    const brk = text[i] === '\n' ? 1 : text[i] === '\r' && text[i + 1] === '\n' ? 2 : 0;
    if (!brk || letters < MIN_WRAPPED_LINE || letters % 2 || !isLetter(text.charCodeAt(i + brk))) break;
    i += brk;
  }
  return { start, end: i, data: data.slice(0, MAX_RUN) };
}

/**
 * Replaces every base64 or hex run in `text` whose decoded text `detect` finds a secret in (it returns the kind)
 * with one placeholder. `detect` is the other built-in rules (credentials.ts), so a run is decoded once, never twice.
 */
export function redactEncodedSecrets(text: string, detect: (decoded: string) => string | undefined): Redacted {
  let out = '';
  let last = 0;
  let count = 0;
  let budget = MAX_DECODED;
  let i = 0;
  while (i < text.length && budget > 0) {
    if (!isLetter(text.charCodeAt(i))) {
      i++;
      continue;
    }
    // Most words are short: skipped without building anything (a wrapped line is longer than MIN_RUN).
    let j = i + 1;
    while (j < text.length && isLetter(text.charCodeAt(j))) j++;
    if (j - i < MIN_RUN) {
      i = j;
      continue;
    }
    const run = readRun(text, i);
    i = run.end;
    if (run.data.length < MIN_RUN) continue;
    budget -= run.data.length;
    let hex = run.data.length % 2 === 0;
    for (let j = 0; hex && j < run.data.length; j++) hex = isHex(run.data.charCodeAt(j));
    const decoded = hex ? decodeHex(run.data) : decodeBase64(run.data);
    const kind = decoded === undefined ? undefined : detect(decoded);
    if (!kind) continue;
    out += text.slice(last, run.start) + mark(`${hex ? 'hex' : 'base64'}:${kind}`);
    last = run.end;
    count++;
  }
  return count ? { text: out + text.slice(last), count } : { text, count: 0 };
}
