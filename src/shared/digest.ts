// A chained fingerprint of the context (messages[0..n)), computed the same way by the workflow and the model
// activity. It lets the activity trust a context it rebuilt from its own results (the assistant message it
// returned, the tool outputs it produced) and skip the `context` query; on any mismatch it queries.
// Pure and deterministic: runs in the workflow sandbox (no crypto there).
import type { ChatMessage } from './wire';

export function extendDigest(prev: string, messages: ChatMessage[]): string {
  let a = prev ? parseInt(prev.slice(0, 8), 16) : 0x811c9dc5;
  let b = prev ? parseInt(prev.slice(8, 16), 16) : 0x01000193;
  for (const m of messages) {
    const text = canonicalJson(m);
    // Two FNV-1a streams with different offsets and a message separator: a 64-bit fingerprint.
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193) >>> 0;
      b = Math.imul(b ^ c ^ 0x5bd1e995, 0x01000193) >>> 0;
    }
    a = Math.imul(a ^ 0x1f, 0x01000193) >>> 0;
    b = Math.imul(b ^ 0x1e, 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/** JSON with sorted keys and undefined members dropped, so both sides serialise a message identically. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
