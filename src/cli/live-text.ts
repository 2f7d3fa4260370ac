// The streamed answer of `hermes run` and `hermes chat` on a terminal: the model's reply word by word on stdout
// as it is written (from handle.events()), step lines on stderr between them, a retried attempt marked. Only on
// a terminal: piped stdout gets the final answer alone, as before.
import type { ConversationHandle } from '../client';
import type { ConversationEvent } from '../shared/events';

export class LiveText {
  #midLine = false;
  /** Answer text printed per model step since its last restart. */
  #printed = new Map<number, string>();
  /** The last model step whose reply was an answer, and its text as printed. */
  #answered: string | undefined;
  #streaming = false;
  readonly #done = new AbortController();
  #consumer: Promise<void> | undefined;

  constructor(
    private readonly out: (text: string) => void = (t) => void process.stdout.write(t),
    private readonly err: (text: string) => void = (t) => void process.stderr.write(t),
    private readonly prefix = '',
  ) {}

  /** Starts printing the conversation's events from `from` (an offset from handle.eventsOffset()). */
  follow(handle: ConversationHandle, from: number): void {
    this.#consumer = (async () => {
      try {
        for await (const ev of handle.events({ from, signal: this.#done.signal })) this.show(ev);
      } catch {
        // The step lines and the final answer still come from the state and the result.
      }
    })();
  }

  /** Stops following; the answer's last words are printed from the result by `finish`. */
  async stop(): Promise<void> {
    this.#done.abort();
    await this.#consumer;
  }

  /** True while a reply is being written on the screen: the in-flight status line stays away then. */
  get busy(): boolean {
    return this.#streaming;
  }

  /** A step line on stderr, on a line of its own. */
  log(line: string): void {
    this.breakLine();
    this.err(`${line}\n`);
  }

  show(ev: ConversationEvent): void {
    const step = ev.step ?? 0;
    switch (ev.type) {
      case 'delta':
        if (ev.channel === 'answer') this.write(step, ev.text);
        break;
      case 'text.replaced':
        if (ev.channel !== 'answer') break;
        this.log(`  (model step ${step}: the reply so far was rewritten)`);
        this.#printed.set(step, '');
        this.write(step, ev.text);
        break;
      case 'attempt.restarted':
        this.log(`  (attempt ${ev.attempt} restarts model step ${step}${ev.reason ? `: ${ev.reason.slice(0, 120)}` : ''})`);
        this.#printed.set(step, '');
        break;
      case 'model.finished':
        this.#streaming = false;
        if (ev.kind === 'answer') this.#answered = this.#printed.get(step);
        this.breakLine();
        break;
      default:
        break;
    }
  }

  /** After the result: prints what of `answer` is not on the screen yet; false when none of it was streamed. */
  finish(answer: string): boolean {
    const shown = this.#answered;
    this.#answered = undefined;
    this.breakLine();
    if (shown === undefined || !answer.startsWith(shown) || !shown) return false;
    if (answer.length > shown.length) this.out(`${answer.slice(shown.length)}\n`);
    return true;
  }

  private write(step: number, text: string): void {
    if (!text) return;
    if (!this.#printed.get(step) && this.prefix) this.out(this.prefix);
    this.out(text);
    this.#printed.set(step, (this.#printed.get(step) ?? '') + text);
    this.#midLine = !text.endsWith('\n');
    this.#streaming = true;
  }

  private breakLine(): void {
    if (this.#midLine) this.out('\n');
    this.#midLine = false;
  }
}
