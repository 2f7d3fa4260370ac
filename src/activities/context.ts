// The model activity gets a reference to the context, not the transcript, so history stays linear. It reads
// the messages from its own workflow with the `context` query (queries are not recorded in history) and keeps
// what it has, so a call transfers only the messages added since the previous one.
//
// Most of those new messages were produced on this worker: the assistant message the previous model call
// returned and the outputs of the tools it asked for. The cache appends them speculatively and compares the
// fingerprint of the result with the one the workflow sent (ContextRef.digest); when they agree the query is
// skipped, when they do not (a budget notice, an interrupt, a repaired call…) it queries for the rest.
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/activity';
import { extendDigest } from '../shared/digest';
import { contextQuery } from '../shared/messages';
import type { ChatMessage, ContextRef, ModelCallResult } from '../shared/types';

interface Entry {
  version: number;
  /** Messages known to be the workflow's (verified by query or digest). */
  messages: ChatMessage[];
  digest: string;
  /** Produced here since: the last assistant message and the tool outputs for its calls. */
  assistant?: Extract<ChatMessage, { role: 'assistant' }>;
  toolOutputs: Map<string, string>;
}

export interface ContextStats {
  queries: number;
  rebuilt: number;
}

export class ContextCache {
  private readonly entries = new Map<string, Entry>();
  readonly stats: ContextStats = { queries: 0, rebuilt: 0 };
  constructor(private readonly maxEntries = 500) {}

  async get(client: Client, workflowId: string, runId: string, ref: ContextRef): Promise<ChatMessage[]> {
    let entry = this.entries.get(workflowId);
    // A new version means the workflow rewrote its context (compression); start over.
    if (!entry || entry.version !== ref.version || entry.messages.length > ref.count) {
      entry = { version: ref.version, messages: [], digest: '', toolOutputs: new Map() };
    }
    this.touch(workflowId, entry);
    const rebuilt = ref.digest ? this.rebuild(entry, ref) : undefined;
    if (rebuilt) {
      this.stats.rebuilt++;
      entry.messages.push(...rebuilt);
      entry.digest = ref.digest!;
    } else if (entry.messages.length < ref.count) {
      this.stats.queries++;
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
      entry.digest = extendDigest(entry.digest, slice.messages);
    }
    entry.assistant = undefined;
    entry.toolOutputs.clear();
    return entry.messages.slice(0, ref.count);
  }

  /** Remembers the assistant message a model call on this worker returned. */
  noteAssistant(workflowId: string, r: ModelCallResult): void {
    const entry = this.entries.get(workflowId);
    if (!entry) return;
    const calls = r.message.tool_calls ?? [];
    entry.assistant = { role: 'assistant', content: r.message.content, ...(calls.length ? { tool_calls: calls } : {}) };
    entry.toolOutputs.clear();
  }

  /** Remembers a tool output produced on this worker, by call id. */
  noteToolOutput(workflowId: string, callId: string, content: string): void {
    this.entries.get(workflowId)?.toolOutputs.set(callId, content);
  }

  /** The new messages as this worker expects them, if they match the workflow's fingerprint exactly. */
  private rebuild(entry: Entry, ref: ContextRef): ChatMessage[] | undefined {
    if (!entry.assistant) return undefined;
    const added: ChatMessage[] = [entry.assistant];
    for (const call of entry.assistant.tool_calls ?? []) {
      const content = entry.toolOutputs.get(call.id);
      if (content === undefined) return undefined;
      added.push({ role: 'tool', tool_call_id: call.id, content });
    }
    if (entry.messages.length + added.length !== ref.count) return undefined;
    return extendDigest(entry.digest, added) === ref.digest ? added : undefined;
  }

  private touch(workflowId: string, entry: Entry): void {
    this.entries.delete(workflowId);
    this.entries.set(workflowId, entry);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
