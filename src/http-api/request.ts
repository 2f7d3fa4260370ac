// The body of `POST /v1/chat/completions`, checked before anything reaches Temporal: every problem is a 400
// naming its field (OpenAI's `param`), so a bad request never starts or touches a conversation.
import { promptTooLarge } from '../client';
import { badRequest, quoted } from './errors';
import { idempotencyKeyOf } from './idempotency';
import { CURRENT_MESSAGE_HEADING } from '../shared/texts';
import type { ClientOffer } from '../shared/client-tools';
import { clientOfferOf } from './client-request';

/** The header that names a session (primary); `metadata.session_id` in the body is the fallback. */
export const SESSION_HEADER = 'x-hermes-session-id';
/** Letters, digits and `. _ : -`, starting with a letter or digit, up to 128: safe in a workflow id, a URL path and a log line. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const SESSION_ID_RULE = 'use letters, digits and . _ : - (1 to 128, starting with a letter or digit)';
/** `model` values that mean "the default profile". */
export const DEFAULT_MODEL_ALIASES = ['', 'hermes', 'default'];

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
type Role = (typeof ROLES)[number];

export interface ChatMessage {
  role: Role;
  text: string;
  /** A `tool` message: the call it answers. */
  toolCallId?: string;
}

export interface ChatRequest {
  /** What the request named (echoed in the response's `model`); the default profile's name when it named none. */
  model: string;
  /** The profile to start with; undefined = the worker's default. */
  profile?: string;
  stream: boolean;
  includeUsage: boolean;
  sessionId?: string;
  /** The system and developer messages, joined. */
  system?: string;
  /** The messages before the last one, without the system ones. */
  earlier: ChatMessage[];
  /** The last message: the user's new message ('' when the request ends with tool results). */
  last: string;
  /** The request ends with `tool` messages: the results of client tool calls its conversation waits on. */
  results?: Array<{ callId: string; content: string }>;
  /** The client's tools, tool choice and answer format (client-request.ts). */
  offer?: ClientOffer;
  /** The Idempotency-Key header, checked (idempotency.ts). */
  idempotencyKey?: string;
}

export interface ProfileNames {
  defaultName: string;
  names: string[];
}

export function isSessionId(s: string): boolean {
  return SESSION_ID.test(s);
}

/**
 * The conversation a session maps to: one workflow id per session, the same from every `hermes serve`. A
 * principal's sessions are its own (`hermes-session-alice/ID`): another principal's same id is another conversation,
 * and no session id (which has no `/`) reaches it.
 */
export function sessionWorkflowId(sessionId: string, principal?: string): string {
  return principal ? `hermes-session-${principal}/${sessionId}` : `hermes-session-${sessionId}`;
}

/** The task conversation of an Idempotency-Key: a retry finds it; a principal's keys are its own. */
export function taskWorkflowId(key: string, principal?: string): string {
  return principal ? `hermes-request-${principal}/${key}` : `hermes-request-${key}`;
}

export function sessionIdOf(value: unknown, param: string): string {
  if (typeof value !== 'string' || !isSessionId(value)) {
    throw badRequest(param, `${param}: ${quoted(value)} is not a session id: ${SESSION_ID_RULE}`, 'invalid_session_id');
  }
  return value;
}

export function parseChatRequest(body: unknown, headers: Record<string, string | string[] | undefined>, profiles: ProfileNames): ChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest(null, 'the body must be a JSON object', 'invalid_json');
  const b = body as Record<string, unknown>;

  const model = b.model === undefined || b.model === null ? '' : b.model;
  if (typeof model !== 'string') throw badRequest('model', 'model must be a string (a model profile: GET /v1/models)', 'invalid_type');
  const isDefault = DEFAULT_MODEL_ALIASES.includes(model);
  if (!isDefault && !profiles.names.includes(model)) {
    throw badRequest(
      'model',
      `model ${quoted(model)} is not a model profile of this server: use one of ${profiles.names.join(', ')} (or "hermes" for the default)`,
      'model_not_found',
    );
  }

  for (const key of ['stream'] as const) {
    if (b[key] !== undefined && b[key] !== null && typeof b[key] !== 'boolean') throw badRequest(key, `${key} must be a boolean`, 'invalid_type');
  }
  const so = b.stream_options;
  if (so !== undefined && so !== null && (typeof so !== 'object' || Array.isArray(so)))
    throw badRequest('stream_options', 'stream_options must be an object', 'invalid_type');
  const includeUsage = (so as { include_usage?: unknown } | null | undefined)?.include_usage;
  if (includeUsage !== undefined && includeUsage !== null && typeof includeUsage !== 'boolean') {
    throw badRequest('stream_options.include_usage', 'stream_options.include_usage must be a boolean', 'invalid_type');
  }
  if (b.n !== undefined && b.n !== null && b.n !== 1)
    throw badRequest('n', 'n must be 1: a conversation gives one answer per message', 'unsupported_value');

  const offer = clientOfferOf(b);

  const meta = b.metadata;
  if (meta !== undefined && meta !== null && (typeof meta !== 'object' || Array.isArray(meta)))
    throw badRequest('metadata', 'metadata must be an object', 'invalid_type');
  const header = headers[SESSION_HEADER];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  const fromBody = (meta as Record<string, unknown> | null | undefined)?.session_id;
  let sessionId: string | undefined;
  if (fromHeader !== undefined) sessionId = sessionIdOf(fromHeader, 'X-Hermes-Session-Id');
  else if (fromBody !== undefined && fromBody !== null) sessionId = sessionIdOf(fromBody, 'metadata.session_id');

  const idempotencyKey = idempotencyKeyOf(headers);
  const messages = parseMessages(b.messages);
  // A request that ends with tool messages hands back the results of the calls its conversation waits on.
  const results = trailingResults(messages);
  const lastIndex = messages.length - 1 - (results?.length ?? 0);
  const lastMessage = messages[messages.length - 1]!;
  if (!results) {
    if (lastMessage.role !== 'user') {
      throw badRequest(`messages[${lastIndex}].role`, `the last message must be the user's (role "user") or tool results, got "${lastMessage.role}"`);
    }
    if (!lastMessage.text.trim()) throw badRequest(`messages[${lastIndex}].content`, 'the last user message is empty');
    const tooLarge = promptTooLarge(lastMessage.text);
    if (tooLarge) throw badRequest(`messages[${lastIndex}].content`, tooLarge, 'too_large');
  }
  const systemParts = messages.slice(0, lastIndex).filter((m) => m.role === 'system' || m.role === 'developer');
  const system = systemParts.map((m) => m.text).join('\n\n');

  return {
    model: isDefault ? model || profiles.defaultName : model,
    ...(isDefault ? {} : { profile: model }),
    stream: b.stream === true,
    includeUsage: includeUsage === true,
    ...(sessionId ? { sessionId } : {}),
    ...(system.trim() ? { system } : {}),
    earlier: messages.slice(0, lastIndex).filter((m) => m.role !== 'system' && m.role !== 'developer'),
    last: results ? '' : lastMessage.text,
    ...(results ? { results } : {}),
    ...(offer ? { offer } : {}),
    ...(idempotencyKey ? { idempotencyKey } : {}),
  };
}

function parseMessages(raw: unknown): ChatMessage[] {
  if (raw === undefined || raw === null)
    throw badRequest('messages', 'messages is required: [{"role": "user", "content": "…"}]', 'missing_required_parameter');
  if (!Array.isArray(raw)) throw badRequest('messages', 'messages must be an array of {role, content}', 'invalid_type');
  if (raw.length === 0) throw badRequest('messages', 'messages must not be empty', 'empty_array');
  return raw.map((m: unknown, i) => {
    const at = `messages[${i}]`;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) throw badRequest(at, `${at} must be an object {role, content}`, 'invalid_type');
    const { role, content, tool_call_id: callId } = m as { role?: unknown; content?: unknown; tool_call_id?: unknown };
    if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
      throw badRequest(`${at}.role`, `${at}.role must be one of ${ROLES.join(', ')}`, 'invalid_value');
    }
    const text = contentText(content, `${at}.content`);
    if (role !== 'tool') return { role: role as Role, text };
    if (typeof callId !== 'string' || !callId)
      throw badRequest(
        `${at}.tool_call_id`,
        `${at}.tool_call_id is required: the id of the tool call this message answers`,
        'missing_required_parameter',
      );
    return { role: 'tool' as const, text, toolCallId: callId };
  });
}

/** The tool messages the request ends with, as results; undefined when it ends with another role. */
function trailingResults(messages: ChatMessage[]): Array<{ callId: string; content: string }> | undefined {
  let i = messages.length;
  while (i > 0 && messages[i - 1]!.role === 'tool') i--;
  if (i === messages.length) return undefined;
  const results = messages.slice(i).map((m) => ({ callId: m.toolCallId!, content: m.text }));
  const size = results.reduce((n, r) => n + r.content.length, 0);
  if (size > 1_000_000)
    throw badRequest(`messages[${i}].content`, `the tool results hold ${size} characters: at most 1000000 in one request`, 'too_large');
  return results;
}

/** A message's text: a string, null (an assistant message that only called tools), or text parts. */
function contentText(content: unknown, at: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw badRequest(at, `${at} must be a string or an array of content parts`, 'invalid_type');
  return content
    .map((p: unknown, j) => {
      const part = p as { type?: unknown; text?: unknown } | null;
      if (typeof part !== 'object' || part === null) throw badRequest(`${at}[${j}]`, `${at}[${j}] must be a content part object`, 'invalid_type');
      if (part.type !== 'text')
        throw badRequest(`${at}[${j}].type`, `${at}[${j}]: only text parts are supported, got ${JSON.stringify(part.type)}`, 'unsupported_value');
      if (typeof part.text !== 'string') throw badRequest(`${at}[${j}].text`, `${at}[${j}].text must be a string`, 'invalid_type');
      return part.text;
    })
    .join('');
}

/**
 * The earlier messages of a request as context text (for the first request of a session, or a request without
 * one): the agent sees what was said before without it becoming turns of its own.
 */
export function renderEarlier(earlier: ChatMessage[]): string {
  const lines = earlier
    .filter((m) => m.text.trim())
    .map((m) => `${m.role === 'user' ? 'User' : m.role === 'assistant' ? 'Assistant' : `(${m.role})`}: ${m.text}`);
  return lines.length ? `The conversation so far, before the current message:\n\n${lines.join('\n\n')}` : '';
}

/** A request without a session: one task whose prompt is its messages (the earlier ones as context). */
export function taskPrompt(r: ChatRequest): string {
  const before = renderEarlier(r.earlier);
  return before ? `${before}${CURRENT_MESSAGE_HEADING}${r.last}` : r.last;
}
