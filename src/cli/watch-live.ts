// `hermes watch ID`: follows any conversation live — one started here, by a Schedule, by `hermes serve` or the stock
// CLI: its steps as they start and finish, the model's reply word by word, what it waits for and how to answer,
// until it closes. `--json`: one event per line (src/shared/events.ts). Watching records nothing; Ctrl-C stops
// watching and leaves the conversation alone.
import { parseArgs } from 'node:util';
import type { ConversationEvent } from '../shared/events';
import { UsageError, withHermes } from './common';
import { LiveText } from './live-text';
import { stopSignal } from './signals';
import { sayUnreachable } from '../startup/connection';

export async function watch(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { from: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError('usage: hermes watch <id> [--from OFFSET] [--json]');
  const from = values.from === undefined ? undefined : Number(values.from);
  if (from !== undefined && (!Number.isInteger(from) || from < 0)) throw new UsageError('--from must be an event offset (0 or more)');
  return withHermes(async (hermes) => {
    const handle = hermes.get(id);
    const done = new AbortController();
    const stop = () => done.abort();
    stopSignal.addEventListener('abort', stop, { once: true });
    process.once('SIGINT', stop);
    const text = new LiveText();
    let last: ConversationEvent | undefined;
    try {
      const follow = { ...(from !== undefined ? { from } : {}), signal: done.signal, onUnreachable: sayUnreachable };
      for await (const ev of handle.events(follow)) {
        last = ev;
        if (values.json) {
          process.stdout.write(`${JSON.stringify(ev)}\n`);
          continue;
        }
        text.show(ev);
        const line = eventLine(ev, id);
        if (line) text.log(line);
        if (ev.type === 'answer' && !text.finish(ev.text)) process.stdout.write(`${ev.text}\n`);
      }
    } catch (err) {
      throw new Error(`cannot watch ${id}: ${(err as Error).message}`, { cause: err });
    } finally {
      process.off('SIGINT', stop);
      stopSignal.removeEventListener('abort', stop);
    }
    if (!values.json && !done.signal.aborted) process.stderr.write(`(${id} closed${last ? ` at event ${last.offset}` : ''})\n`);
    return 0;
  });
}

/** The stderr line of a step event; none for the text itself (stdout) and the events that only shape it. */
export function eventLine(ev: ConversationEvent, id: string): string | undefined {
  const step = ev.step !== undefined ? `model step ${ev.step}` : 'model';
  switch (ev.type) {
    case 'turn.started':
      return `── turn ${ev.turn ?? 1}: ${ev.text.split('\n')[0]!.slice(0, 120)}`;
    case 'model.finished': {
      if (ev.kind === 'failed') return `  ${step} failed: ${ev.error ?? ''}`;
      const tokens = ev.usage ? ` · ${ev.usage.totalTokens} tokens` : '';
      return ev.kind === 'tools' ? `  ${step}: ${ev.toolCalls ?? 1} tool call(s)${tokens}` : `  ${step}: ${ev.kind}${tokens}`;
    }
    case 'tool.started':
      return `  → ${ev.name} ${ev.summary}`;
    case 'tool.finished':
      return `  ${ev.outcome === 'ok' ? '✓' : '✗'} ${ev.name} (${ev.outcome}, ${ev.durationMs} ms): ${ev.summary}`;
    case 'waiting':
      return `  waiting for ${ev.for === 'clarify' ? 'an answer' : 'approval'}: ${ev.question}\n    ${ev.answerWith}`;
    case 'interrupted':
      return `  interrupted: ${ev.reason}`;
    case 'compressed':
      return `  context compressed: ${ev.before} → ${ev.after} characters`;
    case 'continued':
      return `  (continued as a new run; hermes inspect ${id} shows every run)`;
    case 'status':
      return ['running', 'waiting'].includes(ev.status)
        ? undefined
        : `status: ${ev.status}${ev.reason ? ` (${ev.reason})` : ''}${ev.error ? `: ${ev.error}` : ''}`;
    case 'gap':
      return `  (${ev.missed} earlier event(s) are no longer kept: hermes inspect ${id} has every step)`;
    case 'tool_call.forming':
    case 'delta':
    case 'text.replaced':
    case 'attempt.restarted':
    case 'model.started':
    case 'answer':
      return undefined;
    default: {
      const never: never = ev;
      return String(never);
    }
  }
}
