// What reading a conversation from outside needs of the client, as a type of its own: the history readers
// (src/inspect/, src/export/) serve the client facade (src/client.ts), so they take this shape rather than
// importing the facade back. `Hermes` is one.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ConversationResult } from '../shared/contract';

export interface ConversationReader {
  readonly client: Client;
  readonly taskQueue: string;
  get(id: string): ReadableConversation;
}

export interface ReadableConversation {
  readonly workflow: Pick<WorkflowHandle, 'describe'>;
  /** The result across continue-as-new runs (never throws for a failed run). */
  result(): Promise<ConversationResult>;
  /** True when a worker polls the conversation's task queue. */
  workerPolling(): Promise<boolean>;
}
