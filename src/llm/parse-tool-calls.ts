// Some models (small local ones especially) write tool calls as text instead of using the tool_calls field.
// Recover the common shapes so the loop treats them as real calls.
import type { ToolCall } from '../shared/wire';

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const FENCED = /```(?:json|tool_call|tool)?\s*\n?([\s\S]*?)```/g;

export function parseToolCallsFromText(text: string, toolNames: string[], idPrefix: string): ToolCall[] {
  const known = new Set(toolNames);
  const found: ToolCall[] = [];
  const add = (raw: string) => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return;
    }
    for (const item of Array.isArray(value) ? value : [value]) {
      const call = asCall(item);
      if (call && known.has(call.name)) {
        found.push({ id: `${idPrefix}_${found.length}`, type: 'function', function: call });
      }
    }
  };
  for (const m of text.matchAll(TAGGED)) add(m[1]!);
  if (found.length === 0) for (const m of text.matchAll(FENCED)) add(m[1]!);
  return found;
}

function asCall(v: unknown): { name: string; arguments: string } | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const fn = (o.function && typeof o.function === 'object' ? o.function : o) as Record<string, unknown>;
  const name = fn.name ?? fn.tool ?? fn.tool_name;
  if (typeof name !== 'string') return undefined;
  const args = fn.arguments ?? fn.parameters ?? fn.args ?? fn.input ?? {};
  return { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}
