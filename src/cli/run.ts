// `hermes run`: starts a conversation, shows its steps, prints the answer.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import readline from 'node:readline/promises';
import { promptTooLarge, type ConversationHandle, type Hermes } from '../client';
import type { ConversationResult } from '../shared/contract';
import { reportDelivery } from './delivery-report';
import { checkedWorkspace, maxIterationsOption, UsageError, withHermes } from './common';
import { follow } from './follow';
import { LiveText } from './live-text';
import { claimSigint, onStop, stopNow, type StopSignal } from './signals';
import { showPrompt } from './show-prompt';
import { loadProfiles } from '../llm/profiles';
import { choose, describeChoice } from '../llm/auto-profile';

/** Exit code of `run --no-wait` when no worker polls the task queue (the conversation stays queued). */
const NO_WORKER = 3;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'max-iterations': { type: 'string' },
      model: { type: 'string' },
      'fallback-model': { type: 'string' },
      workspace: { type: 'string' },
      tools: { type: 'string' },
      sandbox: { type: 'string' },
      network: { type: 'boolean' },
      'child-approvals': { type: 'boolean' },
      id: { type: 'string' },
      'memory-scope': { type: 'string' },
      webhook: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      'prompt-file': { type: 'string' },
      'no-wait': { type: 'boolean', default: false },
      'show-prompt': { type: 'boolean', default: false },
      'no-stream': { type: 'boolean', default: false },
    },
  });
  if (values['show-prompt']) {
    return showPrompt({
      workspace: checkedWorkspace(values.workspace),
      tools: toolsOption(values.tools),
      ...(values.model ? { model: values.model } : {}),
      ...(values['memory-scope'] ? { memoryScope: values['memory-scope'] } : {}),
    });
  }
  const prompt = await readPrompt(positionals, values['prompt-file']);
  // Refused before anything is started (or connected to): the server would refuse it after a long wait.
  const tooLarge = promptTooLarge(prompt);
  if (tooLarge) throw new UsageError(tooLarge);
  const maxIterations = maxIterationsOption(values['max-iterations']);
  const workspace = checkedWorkspace(values.workspace);
  const sandbox = values.sandbox;
  if (sandbox !== undefined && sandbox !== 'bwrap' && sandbox !== 'none') throw new UsageError('--sandbox must be bwrap or none');
  return withHermes(
    async (hermes) => {
      const handle = await hermes.start({
        prompt,
        maxIterations,
        model: values.model,
        fallbackModel: values['fallback-model'],
        workspace,
        tools: toolsOption(values.tools),
        id: values.id,
        ...(values['memory-scope'] ? { memoryScope: values['memory-scope'] } : {}),
        ...(values.webhook ? { webhook: values.webhook } : {}),
        ...(sandbox ? { sandbox } : {}),
        ...(values.network !== undefined ? { network: values.network } : {}),
        ...(values['child-approvals'] ? { delegation: { childApprovals: true } } : {}),
      });
      // Said with --quiet too: what was sent is not what was typed.
      if (handle.redaction) process.stderr.write(`hermes: ${handle.redaction.notice}\n`);
      const log = values.quiet ? undefined : (line: string) => void process.stderr.write(`${line}\n`);
      log?.(`conversation ${handle.id}${hermes.uiUrl ? ` — ${hermes.uiUrl}/namespaces/default/workflows/${handle.id}` : ''}`);
      if (log) await sayModelChoice(log, values.model);
      let gaveUp!: () => void;
      const noWorker = new Promise<typeof NO_WORKER>((resolve) => (gaveUp = () => resolve(NO_WORKER)));
      const onMissing = values['no-wait']
        ? () => {
            process.stderr.write(`--no-wait: not waiting; ${handle.id} stays queued and runs once a worker polls\n`);
            gaveUp();
          }
        : undefined;
      // On a terminal the answer is written word by word as the model writes it; piped, only the final answer.
      const liveText = process.stdout.isTTY && !values.json && !values['no-stream'] ? new LiveText() : undefined;
      liveText?.follow(handle, 0);
      const following = followToResult(hermes, handle, log && liveText ? (l) => liveText.log(l) : log, onMissing, liveText);
      following.catch(() => undefined); // when --no-wait gave up, nobody waits for it any more
      const result = await Promise.race([following, noWorker]);
      await liveText?.stop();
      if (result === NO_WORKER) return NO_WORKER;
      if (values.json) process.stdout.write(`${JSON.stringify({ id: handle.id, ...result }, null, 2)}\n`);
      else printResult(handle.id, result, liveText?.finish(result.answer) ?? false);
      if (result.delivery) process.stderr.write(`${await reportDelivery(hermes, result.delivery)}\n`);
      return result.status === 'completed' ? 0 : result.status === 'failed' ? 1 : 3;
    },
    { workspace },
  );
}

/**
 * Follows the conversation to its result. On a terminal, pending questions and approvals are asked inline,
 * and Ctrl-C interrupts the conversation (twice: detach, leaving it running). SIGTERM detaches at once
 * (withHermes ends the wait; the message here says what goes on and how to reach it).
 */
function followToResult(
  hermes: Hermes,
  handle: ConversationHandle,
  log?: (line: string) => void,
  onMissing?: () => void,
  liveText?: LiveText,
): Promise<ConversationResult> {
  const rl = process.stdin.isTTY ? readline.createInterface({ input: process.stdin, output: process.stderr }) : undefined;
  const unsetStop = onStop((sig) => process.stderr.write(detachedMessage(hermes, handle.id, sig)));
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) return stopNow('SIGINT');
    process.stderr.write('\n(interrupting; Ctrl-C again to detach)\n');
    void handle.interrupt({ reason: 'Ctrl-C' }).catch((e: Error) => process.stderr.write(`interrupt failed: ${e.message}\n`));
  };
  // Without a terminal, Ctrl-C arrives as the process's SIGINT: ours while the run is followed, not a stop.
  const releaseSigint = rl ? undefined : claimSigint();
  if (rl) rl.on('SIGINT', onSigint);
  else process.on('SIGINT', onSigint);
  // Once the result is in, Ctrl-C is ours no more and the terminal goes back to normal.
  const result = handle.result().finally(() => {
    rl?.close();
    process.off('SIGINT', onSigint);
    releaseSigint?.();
    unsetStop();
  });
  return follow(handle, result, {
    log,
    rl,
    modelSteps: () => handle.modelSteps(),
    worker: { hermes, onMissing },
    // The status line redrawn in place would wipe the line being written: lines, and none while text comes.
    ...(liveText ? { inFlight: { redraw: false as const }, quietWhile: () => liveText.busy } : {}),
  });
}

/** What a detach says: the conversation goes on, and how to follow, interrupt or cancel it. */
export function detachedMessage(hermes: Hermes, id: string, sig: StopSignal): string {
  const cause = sig === 'SIGINT' ? 'Ctrl-C again' : sig;
  const where = hermes.target?.embedded
    ? "a worker of this machine's embedded server goes on with it (`hermes worker`, or any hermes command here; while none runs, it waits)"
    : 'a worker goes on with it (durably: a worker that starts later resumes it)';
  return (
    `\n${cause}: detached from ${id}; the conversation is not stopped: ${where}.\n` +
    `  follow it: hermes status ${id}   interrupt it: hermes interrupt ${id}   cancel it: hermes cancel ${id}\n`
  );
}

function toolsOption(raw: string | undefined): string[] | undefined {
  return raw
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/** The prompt: the arguments, `-` for stdin, or --prompt-file (for text too long for a command line). */
async function readPrompt(positionals: string[], file: string | undefined): Promise<string> {
  const fromStdin = positionals.length === 1 && positionals[0] === '-';
  if (file !== undefined && positionals.length) throw new UsageError('give the prompt as arguments, as -, or with --prompt-file: not two of them');
  let prompt: string;
  if (file !== undefined) {
    try {
      prompt = readFileSync(file, 'utf8');
    } catch (e) {
      throw new UsageError(`--prompt-file ${file}: ${(e as Error).message}`);
    }
  } else if (fromStdin) {
    if (process.stdin.isTTY) process.stderr.write('(reading the prompt from stdin; Ctrl-D ends it)\n');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    prompt = Buffer.concat(chunks).toString('utf8');
  } else prompt = positionals.join(' ');
  if (file !== undefined || fromStdin) prompt = prompt.replace(/\r?\n$/, '');
  if (!prompt.trim()) {
    throw new UsageError(
      fromStdin
        ? 'hermes run -: stdin held no prompt'
        : file !== undefined
          ? `--prompt-file ${file} is empty`
          : 'hermes run needs a prompt: hermes run "what to do"',
    );
  }
  return prompt;
}

/** `streamed`: the answer is on the screen already (cli/live-text.ts). */
function printResult(id: string, r: ConversationResult, streamed = false): void {
  if (!streamed) process.stdout.write(`${r.answer}\n`);
  // runs 0: a run that ended without a result whose totals could not be recovered (result()), not zeros.
  const known = r.runs > 0;
  const tail = [
    `status: ${r.status}${r.reason ? ` (${r.reason})` : ''}`,
    `iterations: ${known ? r.iterations : 'unknown'}`,
    `tokens: ${known ? r.usage.totalTokens : 'unknown'}${r.usage.reasoningTokens ? ` (${r.usage.reasoningTokens} reasoning)` : ''}`,
    r.usage.costUsd ? `cost: $${r.usage.costUsd.toFixed(4)}` : '',
    `workflow id: ${id}`,
  ].filter(Boolean);
  process.stderr.write(`\n${tail.join(' · ')}\n`);
  if (r.error) process.stderr.write(`error: ${r.error}\n`);
}

/** What a worker here chooses for the run's profile from what its local server says (src/llm/auto-profile.ts). */
async function sayModelChoice(log: (line: string) => void, name: string | undefined): Promise<void> {
  if (process.env.HERMES_DETECT === '0') return;
  try {
    const set = loadProfiles();
    const p = set.profiles[name ?? set.defaultName];
    const c = p ? await choose(p) : undefined;
    if (c?.reasons.length) log(`model: ${describeChoice(c)}`);
  } catch {
    // A profile error is the worker's to report (it refuses to start); this line is only information.
  }
}
