// Delivery of a scheduled run's result to its webhook. TO BE IMPLEMENTED (see the issue 9 notes).
import type { ConversationResult } from '../shared/contract';
import type { Conversation } from './state';

/** The answer a scheduled run gives when there is nothing to report: no delivery happens. */
export const NOTHING_TO_REPORT = 'NOTHING_TO_REPORT';

/** Hands the result of a scheduled run with a webhook to delivery; never fails or delays the run's own end. */
export async function deliverResult(c: Conversation, result: ConversationResult): Promise<ConversationResult> {
  void c;
  return Promise.resolve(result);
}
