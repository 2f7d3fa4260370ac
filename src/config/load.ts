// Finds and loads the config file: HERMES_CONFIG, else the first of hermes.config.{json,mjs,js,ts} in the working
// directory. JSON is parsed; .mjs/.js are required (Node 20.19+ loads ES modules with require); .ts goes through
// tsx, which is a dependency already. Loaded once per file and modification time.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { z } from 'zod';
import { configSchema, type HermesConfig } from './schema';

export const CONFIG_NAMES = ['hermes.config.json', 'hermes.config.mjs', 'hermes.config.js', 'hermes.config.ts'];

/** The config file this process uses, whether or not it exists (HERMES_CONFIG, else the first found, else the JSON name). */
export function configPath(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  if (env.HERMES_CONFIG) return path.resolve(cwd, env.HERMES_CONFIG);
  const found = CONFIG_NAMES.map((n) => path.join(cwd, n)).find((f) => existsSync(f));
  return found ?? path.join(cwd, CONFIG_NAMES[0]!);
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const cache = new Map<string, { mtimeMs: number; config: HermesConfig }>();

/** The config file, validated; undefined when there is none. Throws ConfigError naming the file and each bad field. */
export function readConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): { file: string; config: HermesConfig } | undefined {
  const file = configPath(env, cwd);
  if (!existsSync(file)) return undefined;
  const { mtimeMs } = statSync(file);
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return { file, config: hit.config };
  const parsed = configSchema().safeParse(readRaw(file));
  if (!parsed.success) throw new ConfigError(`invalid configuration in ${file}:\n${issueLines(parsed.error)}`);
  cache.set(file, { mtimeMs, config: parsed.data });
  return { file, config: parsed.data };
}

function readRaw(file: string): unknown {
  try {
    if (file.endsWith('.json')) return JSON.parse(readFileSync(file, 'utf8'));
    const mod = loadModule(file) as { default?: unknown };
    return mod && typeof mod === 'object' && 'default' in mod ? mod.default : mod;
  } catch (err) {
    throw new ConfigError(`cannot read the configuration ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** require() of a .mjs/.js/.cjs/.ts file, fresh each time (the caller caches by mtime). */
export function loadModule(file: string): unknown {
  if (/\.(ts|mts|cts)$/.test(file)) return tsRequire()(file);
  const req = createRequire(file);
  delete req.cache[req.resolve(file)];
  return req(file);
}

let tsLoader: ((id: string) => unknown) | undefined;
function tsRequire(): (id: string) => unknown {
  if (!tsLoader) {
    // tsx's CommonJS API: a namespaced require that compiles TypeScript without touching the global hooks.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const api = require('tsx/cjs/api') as { require: (id: string, from: string) => unknown };
    tsLoader = (id) => api.require(id, __filename);
  }
  return tsLoader;
}

/** One `path: what was expected` line per problem, e.g. `tools.modules[0]: Invalid input: expected string, received number`. */
export function issueLines(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where = i.path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${String(p)}` : String(p)), '');
      return `  ${where || '(top level)'}: ${i.message}`;
    })
    .join('\n');
}
