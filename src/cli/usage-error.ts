// Its own module so bin/hermes.js and the dispatch load it without the commands' dependencies.

/** A mistake in the command line: bin/hermes.js prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
