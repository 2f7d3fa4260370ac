// `hermes memory show|clear [--scope S]`: the durable memory a scope's conversations share (src/workflows/memory.ts).
import { parseArgs } from 'node:util';
import { MemoryError } from '../memory/client';
import { listEntries, MEMORY_STORES, STORE_TITLES, usedChars, type MemoryStoreName, type MemoryView } from '../shared/memory';
import { UsageError, withHermes } from './common';

export async function memory(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'show' && sub !== 'clear') {
    throw new UsageError(
      sub === undefined ? 'hermes memory needs a subcommand: show, clear' : `hermes memory: unknown subcommand "${sub}" (show, clear)`,
    );
  }
  const { values } = parseArgs({
    args: rest,
    options: { scope: { type: 'string', default: 'default' }, store: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const store = values.store;
  if (store !== undefined && !(MEMORY_STORES as readonly string[]).includes(store))
    throw new UsageError(`--store must be notes or user, got "${store}"`);
  if (store !== undefined && sub === 'show') throw new UsageError('--store is for hermes memory clear');
  return withHermes(async (hermes) => {
    let m;
    try {
      m = hermes.memory(values.scope);
    } catch (err) {
      if (err instanceof MemoryError) throw new UsageError(`--scope: ${err.message}`);
      throw err;
    }
    const view = sub === 'show' ? await m.read() : await m.clear(store as MemoryStoreName | undefined);
    if (values.json) process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
    else {
      if (sub === 'clear')
        process.stdout.write(
          `cleared ${store ? STORE_TITLES[store as MemoryStoreName].toLowerCase() : 'both stores'} of memory scope "${view.scope}"\n`,
        );
      process.stdout.write(formatMemory(view));
    }
    return 0;
  });
}

export function formatMemory(view: MemoryView): string {
  const parts = MEMORY_STORES.map(
    (n) => `${STORE_TITLES[n]} (${usedChars(view[n].entries)}/${view[n].limit} characters):\n${listEntries(view[n])}\n`,
  );
  return `memory scope "${view.scope}" (workflow hermes-memory-${view.scope}, ${view.writes} write(s))\n\n${parts.join('\n')}`;
}
