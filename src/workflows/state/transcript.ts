// The transcript: the messages the model sees, and the only code that changes them. Appending leaves earlier
// messages alone (the incremental digest extends); every rewrite of earlier messages goes through `rewrite`,
// which bumps the context version (workers drop the contexts they cached) and keeps the replaced context
// answerable to the `context` query, so `hermes inspect` shows every step as the model saw it.
import { z } from 'zod';
import { extendDigest } from '../../shared/digest';
import type { ChatMessage, ContextSlice } from '../../shared/wire';
import { PRUNE_KEEP_TAIL, pruneToolOutputs } from '../rules/context-ops';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
/** What continue-as-new carries of the transcript. Messages are checked for shape only: thousands of them. */
export function transcriptCarry() {
  const n = z.number().int().min(0);
  return z.object({
    messages: z.custom<ChatMessage[]>(
      (v) =>
        Array.isArray(v) && v.length > 0 && v.every((m) => typeof m === 'object' && m !== null && ROLES.has((m as { role?: string }).role ?? '')),
      'expected a non-empty array of chat messages',
    ),
    contextVersion: n,
    /** Index of the first message of the current turn (bounds the "work so far" of an interrupted turn). */
    turnStartMessage: n,
  });
}
export type TranscriptCarry = z.infer<ReturnType<typeof transcriptCarry>>;

export class Transcript {
  #messages: ChatMessage[];
  #version: number;
  #turnStart: number;
  #digested = { version: -1, count: 0, value: '' };
  #sentWhole = false;
  /**
   * Contexts of other versions this run served or replaced (compressions, prunes, the summarising call's).
   * Not carried: a later run's inspect asks the run that had them (a closed run answers queries by replaying).
   */
  readonly #archive = new Map<number, ChatMessage[]>();

  /** A fresh transcript starts with an empty system prompt (system-prompt-step.ts builds it) and the first request. */
  constructor(carried: TranscriptCarry | undefined, prompt: string | undefined) {
    this.#messages = carried?.messages ?? [{ role: 'system', content: '' }, ...(prompt?.trim() ? [{ role: 'user' as const, content: prompt }] : [])];
    this.#version = carried?.contextVersion ?? 0;
    this.#turnStart = carried?.turnStartMessage ?? 0;
  }

  get messages(): readonly ChatMessage[] {
    return this.#messages;
  }
  get version(): number {
    return this.#version;
  }
  get length(): number {
    return this.#messages.length;
  }
  get turnStart(): number {
    return this.#turnStart;
  }

  carry(): TranscriptCarry {
    return { messages: this.#messages, contextVersion: this.#version, turnStartMessage: this.#turnStart };
  }

  append(...messages: ChatMessage[]): void {
    this.#messages.push(...messages);
  }

  /** A chat turn's user message: the turn's work starts here. */
  beginTurn(text: string): void {
    this.#turnStart = this.#messages.length;
    this.#messages.push({ role: 'user', content: text });
  }

  /** A fresh run's system prompt, before its first model call (nothing has seen or cached the placeholder). */
  setSystemPrompt(content: string): void {
    this.#messages[0] = { role: 'system', content };
    this.#digested = { version: -1, count: 0, value: '' };
  }

  /**
   * Replaces the context with `next` under a new version (one more, plus `skip` versions another context used);
   * `turnStart` moves the current turn's first message when the rewrite moved it.
   */
  rewrite(next: ChatMessage[], opts: { skip?: number; turnStart?: number } = {}): void {
    this.#archive.set(this.#version, this.#messages);
    this.#messages = next;
    this.#version += 1 + (opts.skip ?? 0);
    if (opts.turnStart !== undefined) this.#turnStart = opts.turnStart;
  }

  /** Old tool outputs (outside the recent tail) become one-line stubs; false when there were none. */
  pruneOldToolOutputs(): boolean {
    const next = this.#messages.slice();
    if (pruneToolOutputs(next, PRUNE_KEEP_TAIL) === 0) return false;
    this.rewrite(next);
    return true;
  }

  /** Serves `messages` as context version `version` (the summarising call's own context, compress.ts). */
  serve(version: number, messages: ChatMessage[]): void {
    this.#archive.set(version, messages);
  }

  /**
   * The whole context for this run's first model call when it is at most `maxChars` (contextChars) long; undefined
   * after that call, or when larger: workers then rebuild or query it (src/activities/context.ts).
   */
  wholeForFirstCall(chars: number, maxChars: number): ChatMessage[] | undefined {
    if (this.#sentWhole) return undefined;
    this.#sentWhole = true;
    return chars <= maxChars ? this.#messages.slice() : undefined;
  }

  /** Fingerprint of the whole context, extended incrementally (recomputed after a rewrite or in a new run). */
  digest(): string {
    if (this.#digested.version !== this.#version || this.#digested.count > this.#messages.length) {
      this.#digested = { version: this.#version, count: 0, value: '' };
    }
    const d = this.#digested;
    d.value = extendDigest(d.value, this.#messages.slice(d.count));
    d.count = this.#messages.length;
    return d.value;
  }

  slice(version: number, from: number, to: number): ContextSlice {
    if (version === this.#version) return { version, messages: this.#messages.slice(from, to) };
    const kept = this.#archive.get(version);
    if (kept) return { version, messages: kept.slice(from, to), archived: true };
    return { version: this.#version, messages: [] };
  }

  /** The model's latest text in this turn (earlier turns' answers are not this turn's work). */
  lastAssistantText(): string {
    for (let i = this.#messages.length - 1; i >= this.#turnStart; i--) {
      const m = this.#messages[i]!;
      if (m.role === 'assistant' && m.content) return m.content;
    }
    return '';
  }
}
