// A chained fingerprint of the context (messages[0..n)), computed the same way by the workflow and the model
// activity. It lets the activity trust a context it rebuilt from its own results (the assistant message it
// returned, the tool outputs it produced) and skip the `context` query; on any mismatch it queries.
// Pure and deterministic: runs in the workflow sandbox (no crypto there).
import type { ChatMessage } from './wire';

// Module-level aliases, not globals: in the workflow sandbox (a vm context) every read of a global such as `Math`
// goes through the context's interceptor, once per character in the loop below (measured in a vm context: a step's
// two messages took ~100 µs with `Math.imul`, ~30 µs with these). All are pure builtins the SDK does not replace.
const imul = Math.imul;
const stringify = JSON.stringify;
const keysOf = Object.keys;
const isArray = Array.isArray;
const parseHex = (s: string) => parseInt(s, 16);

export function extendDigest(prev: string, messages: ChatMessage[]): string {
  let a = prev ? parseHex(prev.slice(0, 8)) : 0x811c9dc5;
  let b = prev ? parseHex(prev.slice(8, 16)) : 0x01000193;
  for (const m of messages) {
    const text = canonicalJson(m);
    // Two FNV-1a streams with different offsets and a message separator: a 64-bit fingerprint.
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = imul(a ^ c, 0x01000193) >>> 0;
      b = imul(b ^ c ^ 0x5bd1e995, 0x01000193) >>> 0;
    }
    a = imul(a ^ 0x1f, 0x01000193) >>> 0;
    b = imul(b ^ 0x1e, 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/** JSON with sorted keys and undefined members dropped, so both sides serialise a message identically. */
export function canonicalJson(v: unknown): string {
  if (isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${keysOf(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return stringify(v) ?? 'null';
}
