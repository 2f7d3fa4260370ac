// The second request of a constrained step that chose a tool with a body (constrained-body.ts). Apart from
// constrained.ts because it speaks the transports' reply type, and the transports' types name the step format.
import type { ChatMessage } from '../shared/wire';
import { parseStep, stepText, toConstrainedMode } from './constrained';
import { bodyRequest, bodyText, pendingBody, withBodyArgument } from './constrained-body';
import { splitThinking } from './reasoning';
import type { Definition, WireMessage } from './text-mode';
import type { TransportReply } from './transports/types';

/**
 * A step that chose a tool with a body (constrained-body.ts), completed by a second request, without a schema, for
 * the body as plain text: the reply becomes one step with its body, its usage that of both requests. `cut`: the body
 * ran into the reply's token limit, so the call is not made (a truncated file is not written).
 */
export async function completeBody(
  res: TransportReply,
  messages: ChatMessage[],
  defs: Definition[],
  id: string,
  ask: (wire: WireMessage[]) => Promise<TransportReply>,
): Promise<{ res: TransportReply; cut?: string }> {
  const step = parseStep(splitThinking(res.content).content, defs, id);
  if (step.kind !== 'call') return { res };
  const param = pendingBody(step.call, defs);
  if (!param) return { res };
  const wire: WireMessage[] = [
    ...toConstrainedMode(messages, defs),
    { role: 'assistant', content: stepText(step.call.function.name, step.call.function.arguments) },
    { role: 'user', content: bodyRequest(step.call, param) },
  ];
  const reply = await ask(wire);
  const split = splitThinking(reply.content);
  const call = withBodyArgument(step.call, param, bodyText(split.content ?? ''));
  const args = JSON.parse(call.function.arguments) as unknown;
  const content = JSON.stringify({ ...(step.thought ? { thought: step.thought } : {}), tool: call.function.name, arguments: args });
  const merged: TransportReply = {
    ...res,
    content,
    reasoning: [res.reasoning, reply.reasoning, split.thinking].filter(Boolean).join('\n\n'),
    usage: sumUsage(res.usage, reply.usage),
  };
  if (reply.finishReason !== 'length') return { res: merged };
  return { res: merged, cut: `the ${param} for ${call.function.name} was cut off at the reply's token limit: the call was not made` };
}

function sumUsage(a: TransportReply['usage'], b: TransportReply['usage']): TransportReply['usage'] {
  if (!a && !b) return undefined;
  const keys = ['promptTokens', 'completionTokens', 'totalTokens', 'reasoningTokens', 'cachedTokens'] as const;
  const out: NonNullable<TransportReply['usage']> = {};
  for (const k of keys) if (a?.[k] !== undefined || b?.[k] !== undefined) out[k] = (a?.[k] ?? 0) + (b?.[k] ?? 0);
  return out;
}
