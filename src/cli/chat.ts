// `hermes chat`: an interactive conversation; clarify questions and approvals are asked inline.
import { parseArgs } from 'node:util';
import readline from 'node:readline/promises';
import { queuedLines, type LineSource } from './line-queue';
import { checkedWorkspace, maxIterationsOption, withHermes } from './common';
import { follow } from './follow';
import { redactUserText } from '../security/user-input';
import { LiveText } from './live-text';
import { watchWorker } from './pollers';
import { onStop, stopSignal } from './signals';

export async function chat(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      id: { type: 'string' },
      model: { type: 'string' },
      workspace: { type: 'string' },
      'max-iterations': { type: 'string' },
      'no-stream': { type: 'boolean', default: false },
      webhook: { type: 'string' },
    },
  });
  // Checked before connecting: a typo is a usage error, not a conversation whose every tool call fails.
  const workspace = checkedWorkspace(values.workspace);
  const maxIterations = maxIterationsOption(values['max-iterations']);
  return withHermes(
    async (hermes) => {
      // A new chat starts with its first message, so the Web UI's summary and the id say what it is about.
      let handle = values.id ? hermes.get(values.id) : undefined;
      const open = async (first: string) =>
        (handle ??= await hermes.start({
          mode: 'chat',
          model: values.model,
          workspace,
          maxIterations,
          ...(values.webhook ? { webhook: values.webhook } : {}),
          summary: `chat: ${first.split('\n')[0]!.slice(0, 200)}`,
        }));
      process.stderr.write(
        `chat ${handle?.id ?? '(starts with your first message)'} — empty line or Ctrl-D ends; Ctrl-C interrupts a running turn\n`,
      );
      const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY });
      let turnRunning = false;
      // SIGTERM detaches: the conversation is not ended, and a turn under way goes on without us.
      onStop((sig) =>
        process.stderr.write(
          handle
            ? `\n${sig}: detached from ${handle.id}; the conversation is not ended${turnRunning ? ' and the turn goes on' : ''}.\n` +
                `  rejoin it: hermes chat --id ${handle.id}   look at it: hermes status ${handle.id}\n`
            : `\n${sig}: stopped before the first message; no conversation was started.\n`,
        ),
      );
      rl.on('SIGINT', () => {
        if (turnRunning) {
          process.stderr.write('\n(interrupting the turn)\n');
          void handle?.interrupt({ reason: 'Ctrl-C' }).catch((e: Error) => process.stderr.write(`interrupt failed: ${e.message}\n`));
        } else rl.close();
      });
      const closed = new Promise<void>((resolve) => rl.once('close', resolve));
      // A terminal is asked line by line, and closing it ends the chat; piped lines are queued, none lost, and all
      // read before the end of the input ends it (the queue gives '' past their end: line-queue.ts).
      const lines: LineSource = process.stdin.isTTY
        ? rl
        : queuedLines(
            rl,
            (t) => void process.stderr.write(t),
            (l) => redactUserText(l, hermes.client).text,
          );
      const nextLine = process.stdin.isTTY ? () => Promise.race([rl.question('you> '), closed.then(() => undefined)]) : () => lines.question('you> ');
      const log = (line: string) => void process.stderr.write(`${line}\n`);
      try {
        for (;;) {
          const line = await nextLine();
          if (line === undefined || !line.trim() || stopSignal.aborted) break;
          // Redacted here, so the notice comes before the turn (and once, not from the start and the send).
          const typed = redactUserText(line, hermes.client);
          if (typed.redaction) process.stderr.write(`hermes: ${typed.redaction.notice}\n`);
          const message = typed.text;
          const fresh = !handle;
          const h = await open(message);
          if (fresh) process.stderr.write(`(chat ${h.id})\n`);
          turnRunning = true;
          // Steps of earlier turns (or of a conversation joined with --id) are not shown again. The first look
          // waits for the conversation to start: without a worker, that is said within seconds.
          const watch = new AbortController();
          let started = false;
          const watching = watchWorker(hermes, { started: () => started, signal: watch.signal });
          const first = await h.state().finally(() => {
            started = true;
            watch.abort();
          });
          await watching;
          const after = first.lastStep?.step ?? 0;
          // Model step lines carry the number inspect --step takes, counted from the calls made so far.
          const before = await h.modelSteps().then(
            (n) => n.length,
            () => undefined,
          );
          const numbering = before !== undefined ? { modelSteps: () => h.modelSteps(), modelStepsBefore: before } : {};
          // On a terminal the reply is written word by word (from this turn's first event on).
          const liveText = process.stdout.isTTY && !values['no-stream'] ? new LiveText(undefined, undefined, 'hermes> ') : undefined;
          if (liveText) liveText.follow(h, await h.eventsOffset().catch(() => 0));
          const r = await follow(h, h.send(message), {
            log: liveText ? (l) => liveText.log(l) : log,
            rl: lines,
            after,
            intervalMs: 200,
            ...numbering,
            ...(liveText ? { inFlight: { redraw: false as const }, quietWhile: () => liveText.busy } : {}),
          });
          await liveText?.stop();
          turnRunning = false;
          if (stopSignal.aborted) break;
          if (!liveText?.finish(r.answer)) process.stdout.write(`hermes> ${r.answer}\n`);
          if (r.status !== 'completed') process.stderr.write(`(turn ${r.turn}: ${r.status}${r.reason ? `, ${r.reason}` : ''})\n`);
          if (r.delivery && 'error' in r.delivery) process.stderr.write(`(turn ${r.turn} webhook: ${r.delivery.error})\n`);
        }
      } finally {
        rl.close();
        if (!stopSignal.aborted) await handle?.end().catch(() => undefined);
      }
      return 0;
    },
    { workspace },
  );
}
