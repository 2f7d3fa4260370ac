// `hermes search "<words>"`: past conversations whose prompts and answers hold the words, from the engine's
// full-text index (src/sessions/search.ts); `--show ID` prints one conversation's transcript as session_view does.
import { parseArgs } from 'node:util';
import { formatSearch, searchSessions, searchWords } from '../sessions/search';
import { SessionViewError, viewSession } from '../sessions/view';
import { UsageError, withHermes } from './common';

export async function search(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      scope: { type: 'string', default: 'default' },
      'all-scopes': { type: 'boolean', default: false },
      running: { type: 'boolean', default: false },
      limit: { type: 'string' },
      show: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const query = positionals.join(' ');
  if (values.show === undefined && !searchWords(query).length)
    throw new UsageError('hermes search needs words to look for: hermes search "billing migration"');
  if (values.show !== undefined && query) throw new UsageError('hermes search --show ID takes no words');
  const limit = values.limit !== undefined ? Number(values.limit) : 10;
  if (!(Number.isInteger(limit) && limit > 0 && limit <= 50)) throw new UsageError('--limit must be a whole number from 1 to 50');
  const scope = values['all-scopes'] ? undefined : values.scope;
  return withHermes(async (hermes) => {
    if (values.show !== undefined) {
      try {
        process.stdout.write(
          `${await viewSession(hermes.client, values.show, { taskQueue: hermes.taskQueue, ...(scope !== undefined ? { scope } : {}) })}\n`,
        );
        return 0;
      } catch (err) {
        if (err instanceof SessionViewError) throw new UsageError(err.message);
        throw err;
      }
    }
    const o = { taskQueue: hermes.taskQueue, running: values.running, limit, ...(scope !== undefined ? { scope } : {}) };
    const r = await searchSessions(hermes.client, query, o);
    process.stdout.write(values.json ? `${JSON.stringify(r, null, 2)}\n` : `${formatSearch(query, r, o)}\n`);
    return r.hits.length ? 0 : 1;
  });
}
