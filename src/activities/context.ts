// The model activity gets a reference to the context, not the transcript, so history stays linear. It reads
// the messages from its own workflow with the `context` query (queries are not recorded in history) and keeps
// what it has, so a call transfers only the messages added since the previous one.
//
// Most of those new messages were produced on this worker: the assistant message the previous model call
// returned and the outputs of the tools it asked for. The cache appends them speculatively and compares the
// fingerprint of the result with the one the workflow sent (ContextRef.digest); when they agree the query is
// skipped, when they do not (a budget notice, an interrupt, a repaired call…) it queries for the rest. Every
// context handed out is checked against the workflow's digest: on any disagreement the cache starts over
// with a full query, so a stale entry (a reused workflow id, a race) can never reach the model. A run's first call
// brings its whole context when it is small (ContextRef.messages): checked against the digest, it replaces the entry.
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/activity';
import { extendDigest } from '../shared/digest';
import { contextQuery } from '../shared/messages';
import type { ChatMessage, ContextRef, ModelCallResult } from '../shared/wire';

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
  /** Model calls whose whole context came with them (a run's first call) and matched the digest. */
  whole: number;
  /** Entries thrown away because they disagreed with the workflow's digest. */
  resets: number;
}

export class ContextCache {
  private readonly entries = new Map<string, Entry>();
  /** One fetch per conversation at a time: concurrent attempts (a retry beside a zombie) must not interleave. */
  private readonly locks = new Map<string, Promise<unknown>>();
  readonly stats: ContextStats = { queries: 0, rebuilt: 0, whole: 0, resets: 0 };
  constructor(private readonly maxEntries = 500) {}

  get(client: Client, workflowId: string, runId: string, ref: ContextRef): Promise<ChatMessage[]> {
    const prev = this.locks.get(workflowId) ?? Promise.resolve();
    const next = prev.then(
      () => this.fetch(client, workflowId, runId, ref),
      () => this.fetch(client, workflowId, runId, ref),
    );
    const settled = next.catch(() => undefined);
    this.locks.set(workflowId, settled);
    void settled.then(() => {
      if (this.locks.get(workflowId) === settled) this.locks.delete(workflowId);
    });
    return next;
  }

  private async fetch(client: Client, workflowId: string, runId: string, ref: ContextRef): Promise<ChatMessage[]> {
    if (ref.messages && ref.messages.length === ref.count) {
      const digest = extendDigest('', ref.messages);
      if (!ref.digest || digest === ref.digest) {
        this.stats.whole++;
        this.touch(workflowId, { version: ref.version, messages: ref.messages.slice(), digest, toolOutputs: new Map() });
        return ref.messages.slice();
      }
    }
    let entry = this.entries.get(workflowId);
    // A new version means the workflow rewrote its context (compression); start over.
    if (!entry || entry.version !== ref.version || entry.messages.length > ref.count) entry = fresh(ref.version);
    this.touch(workflowId, entry);
    const rebuilt = ref.digest ? this.rebuild(entry, ref) : undefined;
    if (rebuilt) {
      this.stats.rebuilt++;
      entry.messages.push(...rebuilt);
      entry.digest = ref.digest!;
    } else {
      await this.query(client, workflowId, runId, ref, entry);
      if (ref.digest && entry.digest !== ref.digest) {
        // What we had did not belong to this context (e.g. an earlier conversation with the same id).
        this.stats.resets++;
        entry = fresh(ref.version);
        this.touch(workflowId, entry);
        await this.query(client, workflowId, runId, ref, entry);
        if (entry.digest !== ref.digest) {
          throw ApplicationFailure.retryable(`context digest mismatch for v${ref.version}[0..${ref.count})`, 'ContextMoved');
        }
      }
    }
    entry.assistant = undefined;
    entry.toolOutputs.clear();
    return entry.messages.slice(0, ref.count);
  }

  private async query(client: Client, workflowId: string, runId: string, ref: ContextRef, entry: Entry): Promise<void> {
    if (entry.messages.length === ref.count) return;
    this.stats.queries++;
    const slice = await client.workflow
      .getHandle(workflowId, runId)
      .query(contextQuery, { version: ref.version, from: entry.messages.length, to: ref.count });
    if (slice.version !== ref.version || entry.messages.length + slice.messages.length !== ref.count) {
      throw ApplicationFailure.retryable(`context moved: wanted v${ref.version}[0..${ref.count}), workflow has v${slice.version}`, 'ContextMoved');
    }
    entry.messages.push(...slice.messages);
    entry.digest = extendDigest(entry.digest, slice.messages);
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

function fresh(version: number): Entry {
  return { version, messages: [], digest: '', toolOutputs: new Map() };
}
