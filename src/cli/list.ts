// `hermes list`: the task queue's conversations, newest first, from visibility (src/inspect/list.ts).
import { parseArgs } from 'node:util';
import { formatList, listConversations } from '../inspect/list';
import { UsageError, withHermes } from './common';

export async function list(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { status: { type: 'string' }, query: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (positionals.length) throw new UsageError(`hermes list takes no arguments (got "${positionals[0]}"): filter with --status or --query`);
  const limit = values.limit !== undefined ? Number(values.limit) : 50;
  if (!(Number.isInteger(limit) && limit > 0)) throw new UsageError('--limit must be a positive whole number');
  const status = values.status
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (status?.some((s) => !/^[a-z_]+$/.test(s)))
    throw new UsageError('--status takes statuses such as running, waiting, idle, completed, failed (comma-separated)');
  return withHermes(async (hermes) => {
    const rows = await listConversations(hermes, { limit, ...(status?.length ? { status } : {}), ...(values.query ? { query: values.query } : {}) });
    if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else if (!rows.length) process.stdout.write(`no conversations on task queue ${hermes.taskQueue}${status || values.query ? ' match' : ''}\n`);
    else process.stdout.write(formatList(rows));
    return 0;
  });
}
