// The upstream Python agent's trajectory shape (hermes-agent 0.19.0: agent/agent_runtime_helpers.py
// `convert_to_trajectory_format`, agent/trajectory.py `save_trajectory`), so runs of both train the same way:
// `{ conversations: [{ from: system|human|gpt|tool, value }], timestamp, model, completed }`. Its system turn is
// a fixed function-calling preamble listing the tools (not the agent's own system prompt, which it leaves out);
// each assistant turn starts with a `<think>` block (empty when there is no reasoning) and carries its calls as
// `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`; the results of one round are one `tool` turn of
// `<tool_response>\n{"tool_call_id": …, "name": …, "content": …}\n</tool_response>` blocks. JSON is written as
// Python's json.dumps writes it (", " and ": " separators, non-ASCII kept).
import type { ChatMessage } from '../shared/wire';
import type { ToolDefinition, TrajectoryRecord } from './trajectory';

export interface ShareGptTurn {
  from: 'system' | 'human' | 'gpt' | 'tool';
  value: string;
}

export interface ShareGptRecord {
  conversations: ShareGptTurn[];
  timestamp: string;
  model: string;
  completed: boolean;
  /** Ours, beside the upstream fields: which conversation, how it ended, the sub-agents it started. */
  id: string;
  status: string;
  subagents: string[];
}

export function toShareGpt(r: TrajectoryRecord): ShareGptRecord {
  return {
    conversations: conversationsOf(r.messages, r.tools),
    timestamp: r.closedAt,
    model: r.model,
    completed: r.status === 'completed',
    id: r.id,
    status: r.status,
    subagents: r.subagents,
  };
}

export function systemTurn(tools: ToolDefinition[]): string {
  const listed = tools.map((t) => ({
    name: t.function.name,
    description: t.function.description ?? '',
    parameters: t.function.parameters ?? {},
    required: null,
  }));
  return (
    'You are a function calling AI model. You are provided with function signatures within <tools> </tools> XML tags. ' +
    'You may call one or more functions to assist with the user query. If available tools are not relevant in assisting ' +
    "with user query, just respond in natural conversational language. Don't make assumptions about what values to plug " +
    'into functions. After calling & executing the functions, you will be provided with function results within ' +
    '<tool_response> </tool_response> XML tags. Here are the available tools:\n' +
    `<tools>\n${pyJson(listed)}\n</tools>\n` +
    'For each function call return a JSON object, with the following pydantic model json schema for each:\n' +
    "{'title': 'FunctionCall', 'type': 'object', 'properties': {'name': {'title': 'Name', 'type': 'string'}, " +
    "'arguments': {'title': 'Arguments', 'type': 'object'}}, 'required': ['name', 'arguments']}\n" +
    'Each function call should be enclosed within <tool_call> </tool_call> XML tags.\n' +
    "Example:\n<tool_call>\n{'name': <function-name>,'arguments': <args-dict>}\n</tool_call>"
  );
}

export function conversationsOf(messages: ChatMessage[], tools: ToolDefinition[]): ShareGptTurn[] {
  const out: ShareGptTurn[] = [{ from: 'system', value: systemTurn(tools) }];
  // Our system prompt is left out, as upstream leaves its own out (the openai form has it).
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'user') out.push({ from: 'human', value: m.content });
    if (m.role !== 'assistant') continue;
    const text = m.content?.trim() ? m.content : '';
    if (!m.tool_calls?.length) {
      out.push({ from: 'gpt', value: `<think>\n</think>\n${text}`.trim() });
      continue;
    }
    let value = text ? `${text}\n` : '';
    for (const c of m.tool_calls)
      value += `<tool_call>\n${pyJson({ name: c.function.name, arguments: parseArgs(c.function.arguments) })}\n</tool_call>\n`;
    out.push({ from: 'gpt', value: `<think>\n</think>\n${value}`.trimEnd() });
    const responses: string[] = [];
    while (messages[i + 1]?.role === 'tool') {
      const t = messages[++i] as Extract<ChatMessage, { role: 'tool' }>;
      const name = m.tool_calls[responses.length]?.function.name ?? 'unknown';
      responses.push(`<tool_response>\n${pyJson({ tool_call_id: t.tool_call_id, name, content: jsonIfJson(t.content) })}\n</tool_response>`);
    }
    if (responses.length) out.push({ from: 'tool', value: responses.join('\n') });
  }
  return out;
}

/** Upstream parses the arguments and writes `{}` for arguments that are not JSON. */
function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}

/** Upstream parses a tool result that looks like JSON (starts with { or [) and keeps it as a string otherwise. */
function jsonIfJson(content: string): unknown {
  if (!/^\s*[[{]/.test(content)) return content;
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

/** JSON as Python's `json.dumps(v, ensure_ascii=False)` writes it. */
export function pyJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : v > 0 ? 'Infinity' : v < 0 ? '-Infinity' : 'NaN';
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`)
      .join(', ')}}`;
  }
  return 'null'; // functions, symbols, bigints: not JSON
}
