// From an HTTP response to the tool result: the body read up to a cap, and optionally only some JSON fields.

export interface CappedBody {
  text: string;
  /** True when the body was longer than the cap and was cut. */
  truncated: boolean;
}

/** Reads at most maxBytes of the body (and cancels the rest, so a huge response costs neither memory nor time). */
export async function readCapped(res: Response, maxBytes: number): Promise<CappedBody> {
  if (!res.body) return { text: '', truncated: false };
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  // A cut may split a multi-byte character; the decoder turns the stray bytes into U+FFFD instead of failing.
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), truncated };
}

/** Path segments of `a.b.0` or a JSON pointer `/a/b/0` (RFC 6901 escapes ~1 and ~0). */
export function pathSegments(path: string): string[] {
  if (path.startsWith('/'))
    return path
      .slice(1)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path.split('.').filter((s) => s !== '');
}

function pick(value: unknown, segments: string[]): unknown {
  let cur = value;
  for (const seg of segments) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(seg)] : (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/**
 * The selected fields of a JSON document: one path gives its value, several an object keyed by path. A missing
 * field is null, so the model sees that it was asked for and absent.
 */
export function selectFields(json: unknown, paths: string[]): unknown {
  if (paths.length === 1) return pick(json, pathSegments(paths[0])) ?? null;
  return Object.fromEntries(paths.map((p) => [p, pick(json, pathSegments(p)) ?? null]));
}

/** A value as tool result text: strings as they are, anything else as JSON. */
export function resultText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
