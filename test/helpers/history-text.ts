// Every payload's data (and every other string) of a fetched history, decoded: what a search for a leaked secret
// must look through (payloads are JSON in Uint8Arrays; a plain JSON.stringify would show them as numbers).
export function historyText(history: unknown): string {
  const parts: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 40 || v === null || v === undefined) return;
    if (typeof v === 'string') parts.push(v);
    else if (v instanceof Uint8Array) parts.push(Buffer.from(v).toString('utf8'));
    else if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
    else if (typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(history, 0);
  return parts.join('\n');
}
