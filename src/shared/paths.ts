import * as fs from 'node:fs';
import * as path from 'node:path';

const PACKAGE_NAME = 'hermes-temporal';

let cachedRoot: string | undefined;

/**
 * The directory of this project's package.json, found by walking up from this file
 * (works from `src/` under tsx/vitest and from `dist/src/` after a build).
 * Prefers a package.json named `hermes-temporal`; falls back to the nearest package.json.
 */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  let nearest: string | undefined;
  let dir = __dirname;
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      nearest ??= dir;
      try {
        const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown };
        if (pkg.name === PACKAGE_NAME) {
          cachedRoot = dir;
          return dir;
        }
      } catch {
        // unreadable package.json: keep walking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  cachedRoot = nearest ?? process.cwd();
  return cachedRoot;
}

/**
 * Hermes' state directory: `$HERMES_HOME`, else `<package root>/.hermes`. Created on demand.
 * Holds the dev server's SQLite file and log, and the project-local venv with the Temporal binaries.
 */
export function hermesHome(): string {
  const fromEnv = process.env.HERMES_HOME?.trim();
  const home = path.resolve(fromEnv ? fromEnv : path.join(packageRoot(), '.hermes'));
  fs.mkdirSync(home, { recursive: true });
  return home;
}

/**
 * The folder of the sources this code runs from: `src/` (`dist/` after a build), and `src/` too when it runs from
 * the compiled copy under `.hermes/compiled/` (bin/compiled-sources.js), so the workflow bundle and the build id
 * are the same whichever way the sources were loaded.
 */
export function sourceRoot(): string {
  const here = path.join(__dirname, '..');
  if (path.basename(path.dirname(here)) === 'compiled') {
    const src = path.join(packageRoot(), 'src');
    if (fs.existsSync(src)) return src;
  }
  return here;
}
