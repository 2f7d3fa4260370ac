// Piped input (`hermes chat < questions.txt`, a script feeding it): readline reads every line at once, and
// `rl.question` only gets a line that arrives while it asks — the others were dropped, and the end of the input
// closed the interface under the next question ("readline was closed"). Here every line is kept and handed out in
// order, one per question; past the end of the input a question gets an empty line (which ends a chat, leaves a
// clarify question unanswered and denies an approval), never a wait for input that will not come.
import type readline from 'node:readline/promises';

/** What asks the user for a line: a terminal's readline, or the queue of piped lines. */
export interface LineSource {
  question(query: string, options?: { signal?: AbortSignal }): Promise<string>;
}

/** `shown`: what of a line is echoed (the chat gives its redaction: a piped secret must not reach a CI log). */
export function queuedLines(rl: readline.Interface, echo: (text: string) => void, shown: (line: string) => string = (l) => l): LineSource {
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let ended = false;
  rl.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else lines.push(line);
  });
  rl.once('close', () => {
    ended = true;
    for (const w of waiting.splice(0)) w('');
  });
  return {
    question(query, options) {
      const signal = options?.signal;
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      return new Promise<string>((resolve, reject) => {
        const answer = (line: string) => {
          signal?.removeEventListener('abort', abort);
          // After the prompt, the line it got, as a terminal would show it.
          echo(`${shown(line)}\n`);
          resolve(line);
        };
        const abort = () => {
          const i = waiting.indexOf(answer);
          if (i >= 0) waiting.splice(i, 1);
          reject(signal!.reason as Error);
        };
        // Asked at once: a program that writes a line when it sees the prompt is waiting for it.
        echo(query);
        if (lines.length) return answer(lines.shift()!);
        if (ended) return answer('');
        signal?.addEventListener('abort', abort, { once: true });
        waiting.push(answer);
      });
    },
  };
}
