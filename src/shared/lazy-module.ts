// A module loaded on first use, the same under both ways the sources run: bin/hermes.js runs them through tsx's
// CommonJS hook, where import() of a relative .ts path bypasses the hook and fails; vitest (and tsx's ESM mode)
// resolve import() but not a relative require of a .ts file. Each caller passes both, with literal paths.

export function lazyModule<M>(viaRequire: () => M, viaImport: () => Promise<M>): Promise<M> {
  try {
    return Promise.resolve(viaRequire());
  } catch (err) {
    // Not resolvable by require here: the import() route. A module that is really missing fails there too.
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    return viaImport();
  }
}
