// `hermes status`: a conversation's live state (budgets, todo, pending questions, the last steps).
import { parseArgs } from 'node:util';
import { formatStep, UsageError, withHermes } from './common';

export async function status(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const id = positionals[0];
  if (!id) throw new UsageError('hermes status needs a workflow id');
  return withHermes(async (hermes) => {
    const s = await hermes.get(id).state();
    if (values.json) {
      process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
      return 0;
    }
    process.stdout.write(
      `${id}: ${s.status} · iteration ${s.iteration}/${s.maxIterations} · tokens ${s.usage.totalTokens} · ` +
        `tool calls ${s.toolCalls} · runs ${s.runs}\n`,
    );
    const b = s.budgets;
    const left = [
      `iterations left ${b.iterations.left}`,
      b.tokens ? `tokens left ${b.tokens.left}` : '',
      b.costUsd ? `cost left $${b.costUsd.left.toFixed(4)}` : '',
      b.seconds ? `time left ${b.seconds.left} s` : '',
    ].filter(Boolean);
    process.stdout.write(`budgets: ${left.join(' · ')}\n`);
    if (s.pendingQuestion) process.stdout.write(`question (${s.pendingQuestion.callId}): ${s.pendingQuestion.question}\n`);
    for (const a of s.pendingApprovals) process.stdout.write(`approval ${a.callId}: ${a.tool} ${a.command} — ${a.reason}\n`);
    for (const t of s.todo) process.stdout.write(`todo [${t.status}] ${t.id}. ${t.content}\n`);
    // Without a cursor the state query returns the last 5 steps.
    for (const step of s.steps) process.stdout.write(`${formatStep(step)}\n`);
    return 0;
  });
}
