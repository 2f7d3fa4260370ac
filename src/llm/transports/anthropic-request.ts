// The recorded context as an Anthropic Messages request: system messages become `system` text blocks, tool calls
// `tool_use` blocks in the assistant's message, results `tool_result` blocks (paired by tool_use_id) at the start of
// the next user message; consecutive messages of one role are one message, as the API wants turns to alternate.
//
// Prompt caching: the API caches the prefix up to each `cache_control` breakpoint (at most four), in the order
// tools → system → messages. The breakpoints: the last tool (the tool definitions), the system prompt up to
// CONVERSATION_HEADING (the same for every conversation with these tools), the whole system prompt (this
// conversation's), and the last message (what the next step re-sends: each step of the loop reads the previous
// step's prefix from the cache and pays full price only for what was added since).
import type Anthropic from '@anthropic-ai/sdk';
import { CONVERSATION_HEADING } from '../../shared/texts';
import type { ChatMessage } from '../../shared/wire';
import type { Definition } from '../text-mode';

type Block = Anthropic.ContentBlockParam;
type Turn = { role: 'user' | 'assistant'; content: Block[] };

const BREAKPOINT = { cache_control: { type: 'ephemeral' as const } };

export function requestOf(
  messages: ChatMessage[],
  tools: Definition[],
): { system?: Anthropic.TextBlockParam[]; messages: Anthropic.MessageParam[]; tools?: Anthropic.Tool[] } {
  const system = systemBlocks(messages.flatMap((m) => (m.role === 'system' ? [m.content] : [])));
  const turns = alternating(messages.flatMap(turnOf));
  const last = turns.at(-1)?.content.at(-1);
  if (last) Object.assign(last, BREAKPOINT);
  const defs = tools.map((d, i) => ({
    name: d.function.name,
    description: d.function.description,
    input_schema: d.function.parameters as Anthropic.Tool.InputSchema,
    ...(i === tools.length - 1 ? BREAKPOINT : {}),
  }));
  return { ...(system.length ? { system } : {}), messages: turns, ...(defs.length ? { tools: defs } : {}) };
}

/** The system prompt split before its per-conversation part; a breakpoint after the stable part and at the end. */
function systemBlocks(texts: string[]): Anthropic.TextBlockParam[] {
  const [first = '', ...later] = texts;
  const at = first.indexOf(`\n\n${CONVERSATION_HEADING}\n`);
  const parts = at < 0 ? [first] : [first.slice(0, at), first.slice(at + 2)];
  const blocks: Anthropic.TextBlockParam[] = [...parts, ...later].filter((t) => t.trim()).map((text) => ({ type: 'text', text }));
  if (at >= 0 && blocks.length > 1) Object.assign(blocks[0]!, BREAKPOINT);
  if (blocks.length) Object.assign(blocks.at(-1)!, BREAKPOINT);
  return blocks;
}

function turnOf(m: ChatMessage): Turn[] {
  switch (m.role) {
    case 'system':
      return [];
    case 'user':
      return [{ role: 'user', content: textBlocks(m.content) }];
    case 'assistant':
      return [
        {
          role: 'assistant',
          content: [
            ...textBlocks(m.content),
            ...(m.tool_calls ?? []).map((c) => ({
              type: 'tool_use' as const,
              id: toolUseId(c.id),
              name: c.function.name,
              input: inputOf(c.function.arguments),
            })),
          ],
        },
      ];
    case 'tool':
      return [
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId(m.tool_call_id), ...(m.content ? { content: m.content } : {}) }] },
      ];
  }
}

/** The API refuses empty text blocks. */
function textBlocks(text: string | null): Block[] {
  return text?.trim() ? [{ type: 'text', text }] : [];
}

/** Consecutive turns of one role merged, empty ones dropped; in a user turn the tool results come first. */
function alternating(turns: Turn[]): Turn[] {
  const out: Turn[] = [];
  for (const t of turns) {
    if (!t.content.length) continue;
    const prev = out.at(-1);
    if (prev?.role === t.role) prev.content.push(...t.content);
    else out.push({ role: t.role, content: [...t.content] });
  }
  for (const t of out) {
    if (t.role === 'user') t.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  }
  return out;
}

/** A call's arguments as the object tool_use wants; arguments that are not a JSON object (the workflow answered them with an error) as {}. */
function inputOf(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** tool_use ids must match ^[a-zA-Z0-9_-]+$; a call made on another transport (a fallback) may carry others. */
function toolUseId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call';
}
