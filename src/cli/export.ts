// `hermes export`: trajectories, one JSON line per finished conversation (src/export/).
import { parseArgs } from 'node:util';
import { exportConversations, parseSince } from '../export';
import { UsageError, withHermes } from './common';

export async function exportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { query: { type: 'string' }, since: { type: 'string' }, format: { type: 'string' }, subagents: { type: 'boolean' } },
  });
  const format = values.format ?? 'openai';
  if (format !== 'openai' && format !== 'sharegpt') throw new UsageError(`--format ${format}: openai or sharegpt`);
  if (values.since !== undefined) {
    try {
      parseSince(values.since);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  return withHermes(async (hermes) => {
    let n = 0;
    let skipped = 0;
    const records = exportConversations(hermes, {
      format,
      ...(positionals.length ? { ids: positionals } : {}),
      ...(values.query !== undefined ? { query: values.query } : {}),
      ...(values.since !== undefined ? { since: values.since } : {}),
      ...(values.subagents ? { subagents: true } : {}),
      onSkip: (id, why) => {
        skipped++;
        process.stderr.write(`skipped ${id}: ${why}\n`);
      },
      say: (line) => process.stderr.write(`${line}\n`),
    });
    for await (const r of records) {
      n++;
      // Waits for a full pipe to drain, so a large export into `head` or a slow disk stays bounded in memory.
      if (!process.stdout.write(`${JSON.stringify(r)}\n`)) await new Promise((resolve) => process.stdout.once('drain', resolve));
    }
    process.stderr.write(`${n} conversation(s) exported${skipped ? `, ${skipped} skipped` : ''}\n`);
    return 0;
  });
}
