// One writer at a time per file within this worker process: two conversations sharing a workspace could
// otherwise both read a file, each apply its own patch, and the second rename would drop the first one's
// change. Keyed by the real path (resolveInWorkspace resolves symlinks), so two names for one file share a lock.
// Other worker processes and the terminal tool are not covered: this guards the file tools' own read-modify-write.

/** The last holder's release, per path; the entry is dropped when its holder is the last one. */
const tails = new Map<string, Promise<void>>();

/** Runs `fn` while holding the lock of `realPath`; waiters are served in arrival order. */
export async function withPathLock<T>(realPath: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(realPath) ?? Promise.resolve();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // The next caller waits for the previous holder and for this one, whether this one ran or gave up.
  const tail = previous.then(() => released);
  tails.set(realPath, tail);
  try {
    await untilAborted(previous, signal);
    return await fn();
  } finally {
    release();
    if (tails.get(realPath) === tail) tails.delete(realPath);
  }
}

/** Resolves with `p`, or rejects as soon as `signal` aborts (a cancelled call stops waiting for the lock). */
function untilAborted(p: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return p;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** Paths whose lock is held or awaited (tests check that nothing is left behind). */
export function lockedPathCount(): number {
  return tails.size;
}
