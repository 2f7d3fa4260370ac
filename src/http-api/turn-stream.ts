// What a streamed chat completion shows of a turn, made from the conversation's events (src/shared/events.ts).
// Pure: events in, chunk deltas out; chat-completions.ts writes them as `chat.completion.chunk`s.
//
// The rule (docs/guides/serve.md, "What the stream shows"): the joined `content` is the turn's answer, and everything
// else of the turn — the model's thinking, tool calls and their outcomes, waits for approval, restarts — goes
// to `reasoning_content`, which Open WebUI, LibreChat and the OpenAI-compatible SDKs show as thinking, apart
// from the answer. A model step's text is only known to be the answer when the step ends without tool calls,
// so it is held back at first: released as content once the step has streamed HOLD_MS or HOLD_CHARS of text
// with no tool call forming (then it streams word by word), or when the step finishes as an answer. Text held
// by a step that turns out to call tools (a preamble, "let me look") goes to reasoning_content instead. A
// retried attempt (`attempt.restarted`) that writes the same text again streams only what is new; one that
// writes something else after its text was released is noted, and `finish` appends the real answer after a
// blank line — the one case where the joined content is more than the answer.
import type { ConversationEvent } from '../shared/events';
import type { RunStatus } from '../shared/contract';
import { howToAnswer, type Waiting } from './waiting';

export const HOLD_MS = 1_000;
export const HOLD_CHARS = 200;

export interface ChunkDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  /** Client tool calls (client-calls.ts), as the OpenAI API streams them. */
  tool_calls?: Array<{ index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }>;
}

interface StepText {
  attempt: number;
  /** Text of the current attempt not yet shown. */
  held: string;
  heldSince?: number;
  /** The current attempt's text so far. */
  text: string;
  /** Characters of this step's text already sent as content (by any attempt). */
  released: number;
  /** What was sent as content for this step. */
  sent: string;
  tools: boolean;
  diverged: boolean;
}

export interface TurnStreamOptions {
  /** A chat turn: the text sent. Events before the `turn.started` of this text belong to other turns and are skipped. */
  text?: string;
  /** How to reach the session's human-in-the-loop endpoints, for the notes of a wait. */
  sessionPath?: string;
  holdMs?: number;
  holdChars?: number;
  /**
   * The turn's answer must have a format (the client's response_format): no text is released as content before
   * the turn's answer is known, since a first answer that lacks the format is asked for once more.
   */
  holdAnswer?: boolean;
}

export class TurnStream {
  private turn: number | undefined;
  private started: boolean;
  private readonly steps = new Map<number, StepText>();
  /** All content sent so far. */
  private content = '';
  private readonly holdMs: number;
  private readonly holdChars: number;

  constructor(private readonly opts: TurnStreamOptions = {}) {
    this.started = opts.text === undefined;
    this.holdMs = opts.holdMs ?? HOLD_MS;
    this.holdChars = opts.holdChars ?? HOLD_CHARS;
  }

  /** True once the turn's `answer` event has been seen. */
  answered = false;
  /** The turn's wait for a person, while it lasts (until a tool starts or the turn answers). */
  waiting: Waiting | undefined;
  /** The turn waits for the client's tool results: this request's part of it is over. */
  paused = false;

  /** Deltas to send for one event (often none). */
  onEvent(e: ConversationEvent): ChunkDelta[] {
    if (!this.mine(e)) return [];
    switch (e.type) {
      case 'delta':
        return e.channel === 'reasoning' ? this.reasoning(e, e.text) : this.answerText(e, e.text, e.at);
      case 'text.replaced':
        return e.channel === 'reasoning' ? this.reasoning(e, `\n${e.text}`) : this.replaceText(e, e.text, e.at);
      case 'tool_call.forming': {
        const s = this.step(e.step, e.attempt);
        if (!s || s.tools) return [];
        s.tools = true;
        return this.toReasoning(s);
      }
      case 'attempt.restarted':
        return this.restart(e.step, e.attempt, e.reason);
      case 'model.finished': {
        const s = e.step !== undefined ? this.steps.get(e.step) : undefined;
        if (!s) return [];
        if (e.kind === 'answer' && !s.tools && !this.opts.holdAnswer) return this.release(s);
        return this.toReasoning(s);
      }
      case 'tool.started':
        this.waiting = undefined;
        return note(`\n[tool] ${e.name}: ${e.summary}\n`);
      case 'tool.finished':
        return note(`[tool] ${e.name} ${e.outcome} in ${(e.durationMs / 1000).toFixed(1)} s\n`);
      case 'waiting':
        if (e.for === 'tool_results') {
          this.paused = true;
          return [];
        }
        this.waiting = e;
        return note(
          `\n[waiting for ${e.for}] ${e.question}\n` +
            (this.opts.sessionPath ? `(answer: ${howToAnswer(e, this.opts.sessionPath)})\n` : `(${e.answerWith})\n`),
        );
      case 'interrupted':
        return note(`\n[interrupted] ${e.reason}\n`);
      case 'compressed':
        return note(`\n[context compressed: ${e.before} → ${e.after} messages]\n`);
      case 'gap':
        return note(`\n[${e.missed} step events missed]\n`);
      case 'answer':
        this.answered = true;
        this.waiting = undefined;
        return [];
      case 'model.started':
        this.waiting = undefined;
        return [];
      case 'turn.started':
      case 'status':
      case 'continued':
        return [];
    }
  }

  /** The rest of the answer once the turn is over: what the content still lacks of it. */
  finish(answer: string, status?: RunStatus): ChunkDelta[] {
    const out: ChunkDelta[] = [];
    if (status && status !== 'completed') out.push({ reasoning_content: `\n[turn ended: ${status}]\n` });
    if (answer.startsWith(this.content)) {
      const rest = answer.slice(this.content.length);
      if (rest) out.push(this.sendContent(rest));
    } else if (answer) {
      out.push(
        { reasoning_content: '\n[the text streamed above was not the final answer; the answer follows]\n' },
        this.sendContent(`\n\n${answer}`),
      );
    }
    return out;
  }

  private mine(e: ConversationEvent): boolean {
    if (!this.started) {
      if (e.type !== 'turn.started' || e.text !== this.opts.text) return false;
      this.started = true;
      this.turn = e.turn;
      return true;
    }
    if (this.turn === undefined && e.type === 'turn.started' && e.turn !== undefined) this.turn = e.turn;
    if (this.turn !== undefined && e.turn !== undefined && e.turn !== this.turn) return false;
    return !this.answered;
  }

  private step(n: number | undefined, attempt: number): StepText | undefined {
    const key = n ?? -1;
    let s = this.steps.get(key);
    if (!s) {
      s = { attempt, held: '', text: '', released: 0, sent: '', tools: false, diverged: false };
      this.steps.set(key, s);
    }
    // A delta of an older attempt than the one shown (late heartbeat): ignored.
    return attempt < s.attempt ? undefined : s;
  }

  private reasoning(e: { step?: number; attempt: number }, text: string): ChunkDelta[] {
    return this.step(e.step, e.attempt) && text ? [{ reasoning_content: text }] : [];
  }

  private answerText(e: { step?: number; attempt: number }, text: string, at: number): ChunkDelta[] {
    const s = this.step(e.step, e.attempt);
    if (!s || !text) return [];
    if (e.attempt > s.attempt) this.restartStep(s, e.attempt);
    s.text += text;
    if (s.tools) return [{ reasoning_content: text }];
    if (s.diverged) return [];
    if (s.released > 0 || s.sent) {
      // A retried attempt re-writing text already sent: only what goes beyond it is new.
      if (s.text.length <= s.sent.length) {
        if (!s.sent.startsWith(s.text)) return this.diverge(s);
        return [];
      }
      if (!s.text.startsWith(s.sent)) return this.diverge(s);
      const fresh = s.text.slice(s.sent.length);
      s.sent = s.text;
      return [this.sendContent(fresh)];
    }
    s.held += text;
    s.heldSince ??= at;
    if (this.opts.holdAnswer) return [];
    if (s.held.length >= this.holdChars || at - s.heldSince >= this.holdMs) return this.release(s);
    return [];
  }

  /** The step's text so far is `text` (redacted once complete…): held text is replaced; sent text must still agree. */
  private replaceText(e: { step?: number; attempt: number }, text: string, at: number): ChunkDelta[] {
    const s = this.step(e.step, e.attempt);
    if (!s) return [];
    if (e.attempt > s.attempt) this.restartStep(s, e.attempt);
    if (s.tools) return [{ reasoning_content: `\n${text}` }];
    s.text = '';
    s.held = '';
    return this.answerText(e, text, at);
  }

  private release(s: StepText): ChunkDelta[] {
    if (s.diverged || s.tools) return [];
    const text = s.held;
    s.held = '';
    s.released = 1;
    if (!text) return [];
    s.sent += text;
    return [this.sendContent(text)];
  }

  private toReasoning(s: StepText): ChunkDelta[] {
    const text = s.held;
    s.held = '';
    return text ? [{ reasoning_content: text }] : [];
  }

  private restart(n: number | undefined, attempt: number, reason?: string): ChunkDelta[] {
    const s = this.step(n, attempt);
    if (!s) return [];
    if (attempt > s.attempt) this.restartStep(s, attempt);
    return note(`\n[attempt ${attempt} restarts model step ${n ?? '?'}${reason ? `: ${reason}` : ''}]\n`);
  }

  /** A new attempt: its text starts again; what the earlier attempt held back is dropped, what it sent stays sent. */
  private restartStep(s: StepText, attempt: number): void {
    s.attempt = attempt;
    s.text = '';
    s.held = '';
    s.heldSince = undefined;
    s.tools = false;
  }

  private diverge(s: StepText): ChunkDelta[] {
    s.diverged = true;
    return note('\n[the retried attempt writes a different reply than the one streamed; the final answer follows at the end]\n');
  }

  private sendContent(text: string): ChunkDelta {
    this.content += text;
    return { content: text };
  }
}

function note(text: string): ChunkDelta[] {
  return [{ reasoning_content: text }];
}
