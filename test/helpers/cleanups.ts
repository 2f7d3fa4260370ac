// Clean-ups a test file registers as it goes; after each test, whether it passed or not, they run newest first,
// so no process, connection, temp dir or mock outlives a test. `first` runs before them (worker-process.ts passes
// killAllWorkers, so no worker process outlives a test either).
import { afterEach } from 'vitest';

export function cleanupsAfterEach(first?: () => Promise<unknown>): Array<() => unknown> {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    await first?.();
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch {
        // best effort
      }
    }
  });
  return cleanups;
}
