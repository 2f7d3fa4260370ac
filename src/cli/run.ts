// `hermes run`: starts a conversation, shows its steps, prints the answer.
import { parseArgs } from 'node:util';
import readline from 'node:readline/promises';
import type { ConversationHandle } from '../client';
import type { ConversationResult } from '../shared/contract';
import { checkedWorkspace, maxIterationsOption, UsageError, withHermes } from './common';
import { follow } from './follow';

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
      id: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
    },
  });
  const prompt = positionals.join(' ');
  if (!prompt.trim()) throw new UsageError('hermes run needs a prompt: hermes run "what to do"');
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
        tools: values.tools
          ?.split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        id: values.id,
        ...(sandbox ? { sandbox } : {}),
        ...(values.network !== undefined ? { network: values.network } : {}),
      });
      const log = values.quiet ? undefined : (line: string) => void process.stderr.write(`${line}\n`);
      log?.(`conversation ${handle.id}${hermes.uiUrl ? ` — ${hermes.uiUrl}/namespaces/default/workflows/${handle.id}` : ''}`);
      const result = await followToResult(handle, log);
      if (values.json) process.stdout.write(`${JSON.stringify({ id: handle.id, ...result }, null, 2)}\n`);
      else printResult(handle.id, result);
      return result.status === 'completed' ? 0 : result.status === 'failed' ? 1 : 3;
    },
    { workspace },
  );
}

/**
 * Follows the conversation to its result. On a terminal, pending questions and approvals are asked inline,
 * and Ctrl-C interrupts the conversation (twice: detach, leaving it running).
 */
function followToResult(handle: ConversationHandle, log?: (line: string) => void): Promise<ConversationResult> {
  const rl = process.stdin.isTTY ? readline.createInterface({ input: process.stdin, output: process.stderr }) : undefined;
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) {
      process.stderr.write(`\nleaving ${handle.id} running; follow it with: hermes status ${handle.id}\n`);
      process.exit(130);
    }
    process.stderr.write('\n(interrupting; Ctrl-C again to detach)\n');
    void handle.interrupt({ reason: 'Ctrl-C' }).catch((e: Error) => process.stderr.write(`interrupt failed: ${e.message}\n`));
  };
  if (rl) rl.on('SIGINT', onSigint);
  else process.on('SIGINT', onSigint);
  // Once the result is in, Ctrl-C is ours no more and the terminal goes back to normal.
  const result = handle.result().finally(() => {
    rl?.close();
    process.off('SIGINT', onSigint);
  });
  return follow(handle, result, { log, rl });
}

function printResult(id: string, r: ConversationResult): void {
  process.stdout.write(`${r.answer}\n`);
  const tail = [
    `status: ${r.status}${r.reason ? ` (${r.reason})` : ''}`,
    `iterations: ${r.iterations}`,
    `tokens: ${r.usage.totalTokens}`,
    r.usage.costUsd ? `cost: $${r.usage.costUsd.toFixed(4)}` : '',
    `workflow id: ${id}`,
  ].filter(Boolean);
  process.stderr.write(`\n${tail.join(' · ')}\n`);
  if (r.error) process.stderr.write(`error: ${r.error}\n`);
}
