// Client-side tools (OpenAI chat-completions semantics on a durable chat): what a `send` or `toolResults` update
// offers for its turn — the client's function definitions, the tool choice, the answer's format — and what a turn
// hands back when the model calls one of those functions: the calls, for the client to run. The conversation
// waits for their results (src/workflows/loop/client-calls.ts); `hermes serve` speaks them as the OpenAI API does.
import { z } from 'zod';
import { clientCallSchema, usageSchema, type SendArgs, type TurnResult, type Usage } from './contract';

export { clientCallSchema };

/** OpenAI's rule for function names: it is also what keeps them apart from the runtime's own words. */
const CLIENT_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const isClientToolName = (name: string): boolean => CLIENT_TOOL_NAME.test(name);
const CLIENT_TOOL_NAME_RULE = 'letters, digits, _ and - (1 to 64)';
/** At most this many client tools in one request (OpenAI's limit). */
export const MAX_CLIENT_TOOLS = 128;

export function clientToolSchema() {
  return z.object({
    name: z.string().refine(isClientToolName, CLIENT_TOOL_NAME_RULE),
    description: z.string().max(10_000).optional(),
    /** JSON Schema of the arguments (an object); absent: no arguments. */
    parameters: z.record(z.string(), z.unknown()).optional(),
  });
}
export type ClientTool = z.infer<ReturnType<typeof clientToolSchema>>;

/** `required`: the model must call a tool at each step until it calls one of the client's; `{ name }`: that one. */
export function toolChoiceSchema() {
  return z.union([z.literal('required'), z.object({ name: z.string().refine(isClientToolName, CLIENT_TOOL_NAME_RULE) })]);
}
export type ClientToolChoice = z.infer<ReturnType<typeof toolChoiceSchema>>;

/** The format the turn's answer must have: any JSON object, or one a JSON Schema describes. */
export function answerFormatSchema() {
  return z.union([
    z.object({ type: z.literal('json_object') }),
    z.object({
      type: z.literal('json_schema'),
      name: z.string().min(1).max(64),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().optional(),
    }),
  ]);
}
export type AnswerFormat = z.infer<ReturnType<typeof answerFormatSchema>>;

/**
 * What one request offers its turn: all optional, all replaced by the next request of the same turn. A `send`
 * carries it beside its `text` (the send schema itself reads only the text).
 */
export function clientOfferFields() {
  return {
    tools: z.array(clientToolSchema()).max(MAX_CLIENT_TOOLS).optional(),
    toolChoice: toolChoiceSchema().optional(),
    responseFormat: answerFormatSchema().optional(),
  };
}
export interface ClientOffer {
  tools?: ClientTool[];
  toolChoice?: ClientToolChoice;
  responseFormat?: AnswerFormat;
}

/** The offer of a `send` update's arguments (a bare string or `{ text }` offers nothing). */
export function sendOfferSchema() {
  return z.union([z.object(clientOfferFields()), z.string().transform(() => ({}))]);
}
export type SendWithOffer = SendArgs & ClientOffer;

/** The `toolResults` update: one result per awaited call, and the offer for the rest of the turn. */
export function toolResultsSchema() {
  return z.object({
    results: z
      .array(z.object({ callId: z.string().min(1).max(1_000), content: z.string().max(1_000_000) }))
      .min(1)
      .max(MAX_CLIENT_TOOLS),
    ...clientOfferFields(),
  });
}
export type ToolResultsArgs = z.infer<ReturnType<typeof toolResultsSchema>>;

export type ClientCall = z.infer<ReturnType<typeof clientCallSchema>>;

/**
 * A turn that waits for the client: the model called client tools (`toolCalls`; the agent's own calls of the same
 * step have run). `usage` and `iterations` count since the turn began or the last results came.
 */
export function toolCallsPauseSchema() {
  return z.object({
    turn: z.number().int(),
    status: z.literal('tool_calls'),
    /** The text the model wrote beside its calls, if any. */
    text: z.string().nullable(),
    toolCalls: z.array(clientCallSchema()),
    iterations: z.number().int(),
    usage: usageSchema(),
  });
}
export type ToolCallsPause = z.infer<ReturnType<typeof toolCallsPauseSchema>>;

/** What a validator says while a turn waits for results: the awaited calls by id and name. */
export function awaitingResults(calls: readonly ClientCall[]): string {
  const ids = calls.map((c) => `${c.id} (${c.name})`).join(', ');
  return `the conversation awaits the results of tool calls ${ids}: send them as role "tool" messages with those tool_call_ids`;
}

/** What `send` returns: the turn's result, or the client calls it waits on. */
export type TurnReply = TurnResult | ToolCallsPause;
/**
 * What `toolResults` returns: likewise; a result also says what the turn used since these results came (`part`),
 * which is what the request that sent them is told.
 */
export type ResultsReply = (TurnResult & { part: { usage: Usage; iterations: number } }) | ToolCallsPause;

export function isPause(r: TurnReply): r is ToolCallsPause {
  return r.status === 'tool_calls';
}

/** The reason of a turn whose answer did not have the client's `response_format` after it was asked once more. */
export const ANSWER_FORMAT_FAILURE = 'AnswerFormat';
