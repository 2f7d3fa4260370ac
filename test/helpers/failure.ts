// The error a promise rejects with, for tests that look at more than its message (type, retryability, details).

/** Resolves to the rejection of `p`; fails the test when `p` resolves instead. */
export async function failure<T>(p: Promise<T>): Promise<Error> {
  const r = await p.then(
    (v) => new Error(`expected a failure, got ${String(v)}`),
    (e: Error) => e,
  );
  if (r.message.startsWith('expected a failure')) throw r;
  return r;
}
