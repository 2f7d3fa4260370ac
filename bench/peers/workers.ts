// bench/peers: installing each peer in a place of its own and running its worker in a child process.
// ours: the product's worker (ours-worker.ts, run by tsx); ai-sdk: its own package folder with SDK 1.23 (what
// @temporalio/ai-sdk pins); openai-agents: its own venv. A peer whose install fails is skipped with the reason.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type PeerKey = 'ours' | 'ai-sdk' | 'openai-agents';

export interface Peer {
  key: PeerKey;
  label: string;
  /** What got installed (package versions), for the report. */
  versions: string;
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

const ROOT = path.join(__dirname, '..', '..');
const AI_SDK = path.join(__dirname, 'ai-sdk');
const AGENTS = path.join(__dirname, 'openai-agents');
const PY = path.join(AGENTS, '.venv', 'bin', 'python');

const run = (cmd: string, args: string[], cwd = ROOT) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 }).toString();
const lastLine = (err: unknown) => {
  const e = err as { stderr?: Buffer; message?: string };
  const text = (e.stderr?.toString() || e.message || String(err)).trim().split('\n');
  return text
    .filter((l) => l.trim())
    .slice(-2)
    .join(' / ')
    .slice(0, 300);
};
const pkgVersion = (dir: string, name: string) =>
  (JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** Installs the peer on first use; returns its versions, or throws with the reason it cannot be installed. */
function install(key: PeerKey, log: (line: string) => void): string {
  if (key === 'ours') return `@temporalio/worker ${pkgVersion(ROOT, '@temporalio/worker')}`;
  if (key === 'ai-sdk') {
    if (!existsSync(path.join(AI_SDK, 'node_modules', '@temporalio', 'ai-sdk'))) {
      log('installing the ai-sdk peer: npm install --prefix bench/peers/ai-sdk …');
      run('npm', ['install', '--prefix', AI_SDK, '--no-audit', '--no-fund', '--loglevel=error']);
    }
    const v = (n: string) => `${n} ${pkgVersion(AI_SDK, n)}`;
    return [v('@temporalio/ai-sdk'), v('@temporalio/worker'), v('ai'), v('@ai-sdk/openai-compatible')].join(', ');
  }
  if (!existsSync(PY)) {
    log('installing the openai-agents peer: python3 -m venv bench/peers/openai-agents/.venv && pip install -r requirements.txt …');
    run('python3', ['-m', 'venv', path.join(AGENTS, '.venv')]);
    run(PY, ['-m', 'pip', 'install', '-q', '-r', path.join(AGENTS, 'requirements.txt')]);
  }
  const code =
    "import importlib.metadata as m; print(', '.join(f'{p} {m.version(p)}' for p in ['temporalio-openai-agents','temporalio','openai-agents','openai']))";
  return run(PY, ['-c', code]).trim();
}

function command(key: PeerKey): [string, string[]] {
  if (key === 'ours') return [process.execPath, ['--import', 'tsx', path.join(__dirname, 'ours-worker.ts')]];
  if (key === 'ai-sdk') return [process.execPath, [path.join(AI_SDK, 'worker.js')]];
  return [PY, [path.join(AGENTS, 'worker.py')]];
}

export const LABELS: Record<PeerKey, string> = {
  ours: 'hermes-temporal',
  'ai-sdk': '@temporalio/ai-sdk',
  'openai-agents': 'OpenAI Agents SDK on Temporal',
};

/** Installs and starts one peer's worker; resolves once it prints "ready", or with the reason it could not. */
export async function startPeer(key: PeerKey, args: string[], log: (line: string) => void): Promise<Peer | { key: PeerKey; skipped: string }> {
  let versions: string;
  try {
    versions = install(key, log);
  } catch (err) {
    return { key, skipped: `install failed: ${lastLine(err)}` };
  }
  const [cmd, base] = command(key);
  const child = spawn(cmd, [...base, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: '1' },
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const ready = await new Promise<true | string>((resolve) => {
    const timer = setTimeout(() => resolve('did not print "ready" within 180 s'), 180_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(`worker exited (${code}): ${stderr.trim().split('\n').slice(-3).join(' / ').slice(0, 400)}`);
    });
  });
  if (ready !== true) {
    child.kill('SIGKILL');
    return { key, skipped: ready };
  }
  child.stdout!.resume();
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  };
  return { key, label: LABELS[key], versions, child, pid: child.pid!, stop };
}
