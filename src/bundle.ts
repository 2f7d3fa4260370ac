// Bundling the workflow code takes ~2 s; every `hermes run` and `hermes worker` would pay it. The bundle is
// cached under HERMES_HOME, keyed by a hash of the sources and the lock file, so a change invalidates it.
import { bundleWorkflowCode } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hermesHome, packageRoot } from './paths';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export function workflowsPath(): string {
  return sourcePath('index');
}

function probePath(): string {
  const ts = path.join(__dirname, 'replay-query', 'probe.ts');
  return existsSync(ts) ? ts : path.join(__dirname, 'replay-query', 'probe.js');
}

function sourcePath(name: string): string {
  const ts = path.join(__dirname, 'workflows', `${name}.ts`);
  return existsSync(ts) ? ts : path.join(__dirname, 'workflows', `${name}.js`);
}

/** Options every workflow bundle is built with (worker, tests, benchmarks): zod is shared, see preload.ts. */
export function bundleOptions(entry: string = workflowsPath()) {
  return {
    workflowsPath: entry,
    preloadModules: [sourcePath('preload')],
    // Undecodable payloads become values the contract rejects, instead of failing every workflow task.
    payloadConverterPath: sourcePath('payload-converter'),
    logger: quiet,
  };
}

/**
 * The build id of this code: a hash of the sources (names relative to src/, so two installs of the same release
 * agree wherever they live) and the lock file. It keys the cached bundle, and `hermes worker` runs as this version
 * of its Worker Deployment (src/versioning/).
 */
export function buildId(): string {
  const hash = createHash('sha256');
  for (const f of sourceFiles(__dirname)) hash.update(path.relative(__dirname, f).split(path.sep).join('/')).update(readFileSync(f));
  const lock = path.join(packageRoot(), 'package-lock.json');
  if (existsSync(lock)) hash.update(readFileSync(lock));
  return hash.digest('hex').slice(0, 16);
}

/**
 * The cached bundle. `probe` is the replay-only variant with src/replay-query/probe.ts as a workflow interceptor
 * (answers a finished run's queries without a worker); workers never run it.
 */
export async function cachedWorkflowBundle(variant?: 'probe', build: string = buildId()): Promise<{ codePath: string }> {
  const dir = path.join(hermesHome(), 'bundles');
  const file = path.join(dir, `workflows-${variant ? `${variant}-` : ''}${build}.js`);
  if (!existsSync(file)) {
    const options = bundleOptions();
    const { code } = await bundleWorkflowCode(variant ? { ...options, workflowInterceptorModules: [probePath()] } : options);
    mkdirSync(dir, { recursive: true });
    // Write then rename: a concurrent process never reads a half-written bundle.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
  }
  return { codePath: file };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return sourceFiles(p);
      return /\.(ts|js)$/.test(e.name) ? [p] : [];
    });
}
