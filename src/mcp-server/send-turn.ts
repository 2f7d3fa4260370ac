// A chat turn sent from here: counted as under way in this process until it is answered (task_result waits for
// it), and going on durably whether or not anybody waits for its answer.
import type { ConversationHandle } from '../client';
import type { McpContext } from './context';

export function sendTurn(ctx: McpContext, handle: ConversationHandle, text: string): ReturnType<ConversationHandle['send']> {
  const end = ctx.turns.begin(handle.id);
  const sent = handle.send(text).finally(end);
  // A failure after the tool has returned is only logged: the caller sees the turn's status with task_result.
  sent.catch((err: unknown) => ctx.log(`the turn sent to ${handle.id}: ${(err as Error).message}`));
  return sent;
}
