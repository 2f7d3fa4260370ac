// CLI commands that steer a running conversation, and the interactive prompts shared by `run` and `chat`:
// a pending clarify question or approval is asked inline; Ctrl-C interrupts the turn instead of killing us.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import readline from 'node:readline/promises';
import type { ConversationHandle, Hermes } from './client';
import type { ConversationState } from './shared/types';

export class UsageError extends Error {
  override name = 'UsageError';
}

type WithHermes = (fn: (hermes: Hermes) => Promise<number>) => Promise<number>;

export async function interruptCmd(args: string[], withHermes: WithHermes): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { message: { type: 'string' }, reason: { type: 'string' } },
  });
  const id = need(positionals[0], 'hermes interrupt needs a workflow id');
  return withHermes(async (hermes) => {
    await hermes.get(id).interrupt({ reason: values.reason ?? 'interrupted from the CLI', ...(values.message ? { message: values.message } : {}) });
    process.stderr.write(`interrupt sent to ${id}${values.message ? ' (with a new message)' : ''}\n`);
    return 0;
  });
}

export async function answerCmd(args: string[], withHermes: WithHermes): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const id = need(positionals[0], 'hermes answer needs a workflow id and the answer text');
  const text = need(positionals.slice(1).join(' ').trim() || undefined, 'hermes answer needs the answer text');
  return withHermes(async (hermes) => {
    const r = await hermes.get(id).answer(text);
    process.stderr.write(`answered ${r.callId}\n`);
    return 0;
  });
}

export async function approveCmd(args: string[], withHermes: WithHermes): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { deny: { type: 'boolean' }, approve: { type: 'boolean' }, remember: { type: 'boolean' } },
  });
  const id = need(positionals[0], 'hermes approve needs a workflow id and a call id');
  const callId = need(positionals[1], 'hermes approve needs the call id (see hermes status ID)');
  if (values.deny && values.approve) throw new UsageError('choose one of --approve and --deny');
  const decision = values.deny ? 'deny' : 'approve';
  return withHermes(async (hermes) => {
    const r = await hermes.get(id).approve(callId, decision, Boolean(values.remember));
    process.stderr.write(`${r.decision === 'deny' ? 'denied' : 'approved'} ${r.callId}\n`);
    return 0;
  });
}

export async function cancelCmd(args: string[], withHermes: WithHermes): Promise<number> {
  const id = need(args[0], 'hermes cancel needs a workflow id');
  return withHermes(async (hermes) => {
    await hermes.get(id).cancel();
    process.stderr.write(`cancellation requested for ${id}\n`);
    return 0;
  });
}

/**
 * Asks a pending question or approval on the terminal, once per call id. Returns when nothing is pending
 * or the user has answered.
 */
export async function promptPending(handle: ConversationHandle, s: ConversationState, rl: readline.Interface, asked: Set<string>) {
  const q = s.pendingQuestion;
  if (q && !asked.has(q.callId)) {
    asked.add(q.callId);
    const choices = q.choices?.length ? `\n  ${q.choices.map((c, i) => `${i + 1}) ${c}`).join('\n  ')}` : '';
    const text = (await rl.question(`\n? ${q.question}${choices}\n> `)).trim();
    const picked = q.choices && /^\d+$/.test(text) ? (q.choices[Number(text) - 1] ?? text) : text;
    await handle.answer(picked || '(no answer)').catch((e: Error) => process.stderr.write(`answer rejected: ${e.message}\n`));
  }
  for (const a of s.pendingApprovals) {
    if (asked.has(a.callId)) continue;
    asked.add(a.callId);
    const reply = (await rl.question(`\n! ${a.tool} wants to run: ${a.command}\n  (${a.reason}) approve? [y]es / [N]o / [a]lways: `))
      .trim()
      .toLowerCase();
    const decision = reply === 'y' || reply === 'yes' || reply === 'a' || reply === 'always' ? 'approve' : 'deny';
    await handle
      .approve(a.callId, decision, reply.startsWith('a'))
      .catch((e: Error) => process.stderr.write(`decision rejected: ${e.message}\n`));
  }
}

/** A workspace given on the command line is made absolute here, where the user typed it. */
export function checkedWorkspace(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  const abs = path.resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new UsageError(`--workspace ${dir}: no such directory`);
  return abs;
}

export function maxIterationsOption(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!raw.trim() || !(Number.isInteger(n) && n > 0)) throw new UsageError(`--max-iterations must be a positive whole number, got "${raw}"`);
  return n;
}

export async function chatCmd(args: string[], withHermes: WithHermes, formatStep: (s: ConversationState['recentSteps'][number]) => string) {
  const { values } = parseArgs({
    args,
    options: {
      id: { type: 'string' },
      model: { type: 'string' },
      workspace: { type: 'string' },
      'max-iterations': { type: 'string' },
    },
  });
  // Checked before connecting: a typo is a usage error, not a conversation whose every tool call fails.
  const workspace = checkedWorkspace(values.workspace);
  const maxIterations = maxIterationsOption(values['max-iterations']);
  return withHermes(async (hermes) => {
    const handle = values.id
      ? hermes.get(values.id)
      : await hermes.start({
          mode: 'chat',
          model: values.model,
          workspace,
          maxIterations,
        });
    process.stderr.write(`chat ${handle.id} — empty line or Ctrl-D ends; Ctrl-C interrupts a running turn\n`);
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY });
    let turnRunning = false;
    rl.on('SIGINT', () => {
      if (turnRunning) {
        process.stderr.write('\n(interrupting the turn)\n');
        void handle.interrupt({ reason: 'Ctrl-C' });
      } else rl.close();
    });
    const closed = new Promise<void>((resolve) => rl.once('close', resolve));
    try {
      for (;;) {
        const line = await Promise.race([rl.question('you> '), closed.then(() => undefined)]);
        if (line === undefined || !line.trim()) break;
        turnRunning = true;
        const asked = new Set<string>();
        let printed = (await handle.state()).lastStep?.step ?? 0;
        const turn = handle.send(line);
        let done = false;
        void turn.finally(() => (done = true)).catch(() => undefined);
        while (!done) {
          const s = await handle.state().catch(() => undefined);
          if (s) {
            for (const st of s.recentSteps.filter((x) => x.step > printed)) {
              process.stderr.write(`${formatStep(st)}\n`);
              printed = st.step;
            }
            await promptPending(handle, s, rl, asked);
          }
          await new Promise((r) => setTimeout(r, 200));
        }
        turnRunning = false;
        const r = await turn;
        process.stdout.write(`hermes> ${r.answer}\n`);
        if (r.status !== 'completed') process.stderr.write(`(turn ${r.turn}: ${r.status}${r.reason ? `, ${r.reason}` : ''})\n`);
      }
    } finally {
      rl.close();
      await handle.end().catch(() => undefined);
    }
    return 0;
  });
}

function need<T>(v: T | undefined, message: string): T {
  if (v === undefined || v === '') throw new UsageError(message);
  return v;
}
