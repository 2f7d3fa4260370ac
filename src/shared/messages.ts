// Signal, query and update definitions: one place, imported by the workflow and the client.
import { defineQuery } from '@temporalio/workflow';
import type { ContextQueryArgs, ContextSlice, ConversationState } from './types';

export const stateQuery = defineQuery<ConversationState>('state');
/** Used by the model activity to fetch the context by reference (queries are not recorded in history). */
export const contextQuery = defineQuery<ContextSlice, [ContextQueryArgs]>('context');
