// Turns the model's raw tool calls into a plan. A malformed call is data, not an exception: it becomes an
// error result the model reads on its next step. Pure and deterministic (runs in the workflow sandbox).
import { z } from 'zod';
import type { ToolSpec } from '../../tools/spec';
import { TOO_LARGE_MARKER, type ToolCall } from '../../shared/wire';
import { canonicalJson } from '../../shared/digest';

export { canonicalJson };

export type PlannedCall =
  | { kind: 'run'; call: ToolCall; name: string; args: Record<string, unknown>; spec: ToolSpec; repairedFrom?: string }
  | { kind: 'invalid'; call: ToolCall; content: string }
  | { kind: 'duplicate'; call: ToolCall; of: string };

/** Validates every call against the offered tools; `lookup` returns the spec of an offered tool. */
export function planToolCalls(calls: ToolCall[], offered: readonly string[], lookup: (name: string) => ToolSpec | undefined) {
  const seen = new Map<string, string>();
  return calls.map((call): PlannedCall => {
    // The activity normalises these to strings; a worker of an older version may not have.
    const raw = typeof call.function?.name === 'string' ? call.function.name : String(call.function?.name ?? '');
    const name = repairToolName(raw, offered);
    if (!name) {
      return {
        kind: 'invalid',
        call,
        content: `Error: unknown tool "${raw}". Available tools: ${offered.join(', ')}.`,
      };
    }
    const spec = lookup(name)!;
    const parsed = parseArguments(call.function.arguments);
    if (!parsed.ok) {
      return {
        kind: 'invalid',
        call,
        content: `Error: the arguments of ${name} are not a JSON object (${parsed.error}). Call it again with a JSON object matching its parameters.`,
      };
    }
    const checked = spec.schema.safeParse(parsed.value);
    if (!checked.success) {
      return {
        kind: 'invalid',
        call,
        content: `Error: invalid arguments for ${name}:\n${z.prettifyError(checked.error)}\nFix the arguments and call it again.`,
      };
    }
    const args = checked.data as Record<string, unknown>;
    const key = `${name}\u0000${canonicalJson(args)}`;
    const first = seen.get(key);
    if (first) return { kind: 'duplicate', call, of: first };
    seen.set(key, call.id);
    return { kind: 'run', call, name, args, spec, ...(name !== raw ? { repairedFrom: raw } : {}) };
  });
}

/** Exact name, else an obvious repair (case, '-' → '_', a "_tool" suffix), else undefined. */
export function repairToolName(raw: string, offered: readonly string[]): string | undefined {
  if (offered.includes(raw)) return raw;
  const norm = (s: string) =>
    s
      .trim()
      .toLowerCase()
      .replace(/[-\s.]+/g, '_')
      .replace(/^functions?_/, '')
      .replace(/_?tool$/, '');
  const want = norm(raw);
  const hits = offered.filter((o) => norm(o) === want);
  return hits.length === 1 ? hits[0] : undefined;
}

function parseArguments(text: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text !== null && typeof text === 'object' && !Array.isArray(text)) return { ok: true, value: text };
  if (typeof text !== 'string') return { ok: false, error: `got ${Array.isArray(text) ? 'an array' : typeof text}` };
  if (text.startsWith(TOO_LARGE_MARKER)) {
    return { ok: false, error: `too large to record: ${text.slice(TOO_LARGE_MARKER.length)}; send big content in several smaller calls` };
  }
  const t = text.trim();
  if (t === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(t);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { ok: false, error: `got ${Array.isArray(value) ? 'an array' : typeof value}` };
    }
    return { ok: true, value };
  } catch (err) {
    return { ok: false, error: `invalid JSON: ${(err as Error).message}` };
  }
}

/** Consecutive read-only calls form one concurrent batch; each state-changing call is a batch of its own. */
export function batchCalls<T extends { spec: ToolSpec }>(runs: T[]): T[][] {
  const batches: T[][] = [];
  for (const r of runs) {
    const last = batches[batches.length - 1];
    if (r.spec.concurrency === 'read' && last && last[0]!.spec.concurrency === 'read') last.push(r);
    else batches.push([r]);
  }
  return batches;
}
