// Bundling the workflow code takes ~2 s; every `hermes run` and `hermes worker` would pay it. The bundle is
// cached under HERMES_HOME, keyed by a hash of the sources and the lock file, so a change invalidates it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';
import { hermesHome, packageRoot, sourceRoot } from '../shared/paths';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export function workflowsPath(): string {
  return sourcePath('index');
}

function probePath(): string {
  return sourcePath('engine/replay-probe');
}

function sourcePath(name: string): string {
  const dir = path.join(sourceRoot(), 'workflows');
  const ts = path.join(dir, `${name}.ts`);
  return existsSync(ts) ? ts : path.join(dir, `${name}.js`);
}

/** The traced bundle's interceptors (src/workflows/engine/interceptors.ts). */
export function tracingInterceptorsPath(): string {
  return sourcePath('engine/interceptors');
}

/**
 * The SDK compiles workflow TypeScript for ES2017: object spread, class fields and `#private` fields become helper
 * functions (`_object_spread`, `_define_property`, a WeakMap per private field) that every module carries, and the
 * sandbox gives every cached workflow its own instance of each module: ~30 copies of each helper per conversation.
 * The workflow thread runs on the worker's Node (20+), which has all of ES2022: compiled for it, none are needed.
 */
type Configuration = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
function productionBuild(config: Configuration): Configuration {
  for (const rule of config.module?.rules ?? []) {
    const use = rule && typeof rule === 'object' ? rule.use : undefined;
    const options = use && typeof use === 'object' && !Array.isArray(use) ? use.options : undefined;
    const jsc = options && typeof options === 'object' ? (options as { jsc?: { target?: string } }).jsc : undefined;
    if (jsc?.target) jsc.target = 'es2022';
  }
  // Scope hoisting: the ES modules of the bundle joined into one scope, as a production build does (the SDK builds
  // in development mode). No export getter, namespace object or module closure per module and workflow.
  config.optimization = { ...config.optimization, concatenateModules: true };
  return config;
}

/**
 * Options every workflow bundle is built with (worker, tests, benchmarks): zod is shared, see preload.ts.
 * `tracing`: with the OpenTelemetry workflow interceptors (a worker with OTEL_EXPORTER_OTLP_ENDPOINT set runs it).
 */
export function bundleOptions(entry: string = workflowsPath(), opts: { tracing?: boolean } = {}) {
  return {
    workflowsPath: entry,
    webpackConfigHook: productionBuild,
    preloadModules: [sourcePath('engine/preload')],
    // Undecodable payloads become values the contract rejects, instead of failing every workflow task.
    payloadConverterPath: sourcePath('engine/payload-converter'),
    ...(opts.tracing ? { workflowInterceptorModules: [tracingInterceptorsPath()] } : {}),
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
  // All of src/ (dist/ when built), not this file's folder: the id must change when any workflow source does.
  const src = sourceRoot();
  for (const f of sourceFiles(src)) hash.update(path.relative(src, f).split(path.sep).join('/')).update(readFileSync(f));
  const lock = path.join(packageRoot(), 'package-lock.json');
  if (existsSync(lock)) hash.update(readFileSync(lock));
  return hash.digest('hex').slice(0, 16);
}

/**
 * The cached bundle. `probe` is the replay-only variant with src/workflows/engine/replay-probe.ts as a workflow interceptor
 * (answers a finished run's queries without a worker); workers never run it. `traced` has the OpenTelemetry
 * interceptors; it replays the same histories as the plain one (test/replay.test.ts runs the corpus with it).
 */
export async function cachedWorkflowBundle(
  variant?: 'probe' | 'traced',
  build: string = buildId(),
  home: string = hermesHome(),
): Promise<{ codePath: string }> {
  const dir = path.join(home, 'bundles');
  const name = `workflows-${variant ? `${variant}-` : ''}${build}.js`;
  const file = path.join(dir, name);
  // Another HERMES_HOME on this install (a profile, a test's fresh home) reuses the install's own bundle: the name
  // is the hash of every source and the lock file, so the same name is the same code. Saves ~5 s of CPU per start.
  const installs = path.join(installHome(), 'bundles', name);
  if (!existsSync(file) && existsSync(installs)) return { codePath: installs };
  if (!existsSync(file)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only to build a bundle
    const { bundleWorkflowCode } = require('@temporalio/worker') as typeof import('@temporalio/worker');
    const options = bundleOptions(undefined, { tracing: variant === 'traced' });
    const { code } = await bundleWorkflowCode(variant === 'probe' ? { ...options, workflowInterceptorModules: [probePath()] } : options);
    mkdirSync(dir, { recursive: true });
    // Write then rename: a concurrent process never reads a half-written bundle.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
  }
  return { codePath: file };
}

/** The install's own HERMES_HOME default (`<package>/.hermes`), whatever HERMES_HOME says. */
export function installHome(): string {
  return path.join(packageRoot(), '.hermes');
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
