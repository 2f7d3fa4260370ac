// Summarises the .cpuprofile files bench/profile.ts leaves behind: self time per package / file and the top
// functions, per thread, counting only samples inside the measured window.
//   npx tsx bench/profile-summary.ts <dir> [top]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const dir = process.argv[2] ?? '.hermes/bench-prof';
const top = Number(process.argv[3] ?? 20);
const win = JSON.parse(readFileSync(path.join(dir, 'window.json'), 'utf8')) as {
  mode: string;
  conversations: number;
  startUs: number;
  endUs: number;
};
const iterations = win.conversations * 10;

function category(url: string, fn: string): string {
  if (fn.startsWith('(')) return fn;
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.includes('workflow-bundle-')) return 'workflow bundle (src/workflows + deps)';
  const own = /\/(src|bench|test)\/(.*)$/.exec(url);
  if (own) return `${own[1]}/${own[2]!.split('/')[0]}`;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  return url ? url.slice(0, 60) : `(native ${fn})`;
}

for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort()) {
  const p = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (t < win.startUs || t > win.endUs) continue;
    selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const cats = new Map<string, number>();
  const fns = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    const { functionName: fn, url, lineNumber } = n.callFrame;
    if (fn === '(idle)') continue;
    busy += us;
    const c = category(url, fn);
    cats.set(c, (cats.get(c) ?? 0) + us);
    const key = `${fn || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*\/(src|bench|test)\//, '$1/')}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  if (busy < 50_000) continue; // idle helper threads
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(6)} ms ${(us / 1000 / iterations).toFixed(2).padStart(6)} ms/it`;
  console.log(`\n== ${file} (${win.mode}, ${iterations} iterations): busy ${ms(busy)}`);
  for (const [c, us] of [...cats].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${c}`);
  console.log('-- top functions');
  for (const [f, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${f.slice(0, 120)}`);
}
