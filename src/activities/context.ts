// The model activity gets a reference to the context, not the transcript, so history stays linear. It reads
// the messages from its own workflow with the `context` query (queries are not recorded in history) and keeps
// what it fetched, so each call only transfers the messages added since the previous one.
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/activity';
import { contextQuery } from '../shared/messages';
import type { ChatMessage, ContextRef } from '../shared/types';

interface Entry {
  version: number;
  messages: ChatMessage[];
}

export class ContextCache {
  private readonly entries = new Map<string, Entry>();
  constructor(private readonly maxEntries = 500) {}

  async get(client: Client, workflowId: string, runId: string, ref: ContextRef): Promise<ChatMessage[]> {
    let entry = this.entries.get(workflowId);
    // A new version means the workflow rewrote its context (compression); start over.
    if (!entry || entry.version !== ref.version || entry.messages.length > ref.count) {
      entry = { version: ref.version, messages: [] };
    }
    if (entry.messages.length < ref.count) {
      const slice = await client.workflow
        .getHandle(workflowId, runId)
        .query(contextQuery, { version: ref.version, from: entry.messages.length, to: ref.count });
      if (slice.version !== ref.version || entry.messages.length + slice.messages.length !== ref.count) {
        throw ApplicationFailure.retryable(
          `context moved: wanted v${ref.version}[0..${ref.count}), workflow has v${slice.version}`,
          'ContextMoved',
        );
      }
      entry.messages.push(...slice.messages);
    }
    this.entries.delete(workflowId);
    this.entries.set(workflowId, entry);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return entry.messages.slice(0, ref.count);
  }
}
