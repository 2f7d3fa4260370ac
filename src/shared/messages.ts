// Signal, query and update definitions: one place, imported by the workflow and the client. The names are a
// public contract: the stock `temporal` CLI drives conversations with them too.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AnswerArgs, ApproveArgs, ConversationState, InterruptArgs, StateQueryArgs } from './contract';
import type { ResultsReply, SendWithOffer, ToolResultsArgs, TurnReply } from './client-tools';
import type { EventsPage, EventsQueryArgs } from './events';
import type { MemoryStoreName, MemoryView, MemoryWrite, MemoryWriteResult } from './memory';
import type { SkillWrite, SkillWriteResult } from './skills';
import type { ChildApprovals, ChildProgress, ContextQueryArgs, ContextSlice, ToolList } from './wire';

/** Live state; `{ stepsAfter: N }` returns the steps since step N, so a follower never misses one. */
export const stateQuery = defineQuery<ConversationState, [StateQueryArgs?]>('state');
/** Used by the model activity to fetch the context by reference (queries are not recorded in history). */
export const contextQuery = defineQuery<ContextSlice, [ContextQueryArgs]>('context');
/** The catalog tools (modules, HTTP, MCP) this conversation recorded at its start; null when it offers none. */
export const toolsQuery = defineQuery<ToolList | null>('tools');

export const interruptSignal = defineSignal<[InterruptArgs?]>('interrupt');
/** Internal: a sub-agent's totals so far, sent to its parent after each of its model calls. */
export const childProgressSignal = defineSignal<[ChildProgress]>('childProgress');
/** Internal: the approvals waiting in a sub-agent's subtree, sent to its parent whenever they change. */
export const childApprovalsSignal = defineSignal<[ChildApprovals]>('childApprovals');
/** Internal: a parent passes on a decision for an approval its sub-agent reported (the `approve` update's arguments). */
export const approveFromParentSignal = defineSignal<[ApproveArgs]>('approveFromParent');
/** Chat mode: end the conversation. */
export const endSignal = defineSignal<[{ reason?: string }?]>('end');

export const answerUpdate = defineUpdate<{ callId: string }, [AnswerArgs]>('answer');
/** `workflowId` in the result: the sub-agent the decision was passed on to, when it was one's. */
export const approveUpdate = defineUpdate<{ callId: string; decision: 'approve' | 'deny'; workflowId?: string }, [ApproveArgs]>('approve');
/**
 * Chat mode: one user message; returns that turn's answer. With client tools offered (client-tools.ts), the turn
 * may instead return the client calls it waits on.
 */
export const sendUpdate = defineUpdate<TurnReply, [SendWithOffer]>('send');
/** Chat mode: the results of the client calls a turn waits on; returns the turn's answer or its next client calls. */
export const toolResultsUpdate = defineUpdate<ResultsReply, [ToolResultsArgs]>('toolResults');

/**
 * What an update's validator says when there is nothing left for it: also what the client says when the update
 * reaches a conversation that has closed or is closing (src/late-updates.ts), so a late decision gets the
 * same refusal whichever side of the close it lands on.
 */
export const NOTHING_PENDING = {
  answer: 'no question is pending: nothing to answer',
  approve: 'no approval is pending',
  send: 'the conversation has ended',
  toolResults: 'no tool call awaits results',
} as const;
/**
 * Internal: a newer build of the worker deployment became current. Sent by its worker to idle chats pinned to an
 * older build, which then move to it (src/workflows/engine/upgrade.ts); a no-op for any other run.
 */
export const upgradeSignal = defineSignal('upgrade');
/** The memory workflow's handlers: a public contract, the stock `temporal` CLI can use them too. */
export const memoryQuery = defineQuery<MemoryView>('memory');
export const memoryWriteUpdate = defineUpdate<MemoryWriteResult, [MemoryWrite]>('write');
export const memoryClearUpdate = defineUpdate<MemoryView, [{ store?: MemoryStoreName }]>('clear');
/** The skills store's update: a public contract, the stock `temporal` CLI can send it too. */
export const skillWriteUpdate = defineUpdate<SkillWriteResult, [SkillWrite]>('write');
/** Live step events from `from` on (src/shared/events.ts); a query, so watching costs the conversation no history. */
export const eventsQuery = defineQuery<EventsPage, [EventsQueryArgs?]>('events');
