// What workspace checkpoints cost per file-changing step (src/checkpoints/): a generated git repository of ~2,000
// files (100 directories, 0.5-8 KB each, a .gitignore'd build directory and two files over the 1 MiB limit), then
//   - the first before-checkpoint (the shadow repository is created and every file hashed),
//   - steps that write one file (before + after checkpoint, as the tool activity takes them),
//   - steps that change 50 files (a terminal command's worth),
//   - the rollback plan to step 1.
// Medians over the repeated steps. Run: `npx tsx bench/checkpoints.ts [files] [steps]`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planRollback } from '../src/checkpoints/rollback';
import { CheckpointStore, DEFAULT_MAX_FILE_BYTES } from '../src/checkpoints/store';
import { gitDirState, userRepo } from '../test/helpers/user-repo';

const FILES = Number(process.argv[2] ?? 2000);
const STEPS = Number(process.argv[3] ?? 21);

function generate(ws: string): void {
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(ws, `pkg${i % 100}`, i % 3 ? 'src' : 'test');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `file${i}.ts`), `// file ${i}\n${'export const x = 1;\n'.repeat(25 + (i % 400))}`);
  }
  mkdirSync(path.join(ws, 'build'), { recursive: true });
  for (let i = 0; i < 200; i++) writeFileSync(path.join(ws, 'build', `out${i}.js`), 'ignored\n'.repeat(100));
  writeFileSync(path.join(ws, '.gitignore'), 'build/\n');
  writeFileSync(path.join(ws, 'data.bin'), Buffer.alloc(DEFAULT_MAX_FILE_BYTES + 1));
  writeFileSync(path.join(ws, 'model.bin'), Buffer.alloc(8 * DEFAULT_MAX_FILE_BYTES));
  userRepo(ws);
}

/** CPU milliseconds of this process and its waited-for children (git) so far: less load-sensitive than wall time. */
function cpuMs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // Fields 14-17 of stat(5), counted from field 3 (the state) after the command name.
  const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]); // utime stime cutime cstime
  return (ticks * 1000) / 100;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hermes-cp-bench-'));
  const ws = path.join(root, 'ws');
  mkdirSync(ws);
  generate(ws);
  const userGit = gitDirState(ws);
  const store = new CheckpointStore({ dir: path.join(root, 'checkpoints'), maxFileBytes: DEFAULT_MAX_FILE_BYTES });
  const key = (step: number) => ({ workspace: ws, conversation: 'bench', run: 'r1', step });
  let step = 1;
  const first = await timed(() => store.before(key(step)));
  writeFileSync(path.join(ws, 'pkg0/src/file1.ts'), 'changed\n');
  const firstAfter = await timed(() => store.after(key(step)));
  const one = { before: [] as number[], after: [] as number[] };
  const cpu0 = cpuMs();
  for (let i = 0; i < STEPS; i++) {
    const k = key(++step);
    one.before.push(await timed(() => store.before(k)));
    writeFileSync(path.join(ws, `pkg${i % 100}/src/file${(i % 600) * 3 + 1}.ts`), `step ${step}\n`);
    one.after.push(await timed(() => store.after(k)));
  }
  const oneCpu = (cpuMs() - cpu0) / STEPS;
  const many = { before: [] as number[], after: [] as number[] };
  const cpu1 = cpuMs();
  for (let i = 0; i < STEPS; i++) {
    const k = key(++step);
    many.before.push(await timed(() => store.before(k)));
    for (let j = 0; j < 50; j++) writeFileSync(path.join(ws, `pkg${j}/src/file${j * 3 + 1}.ts`), `step ${step} ${j}\n`);
    many.after.push(await timed(() => store.after(k)));
  }
  const manyCpu = (cpuMs() - cpu1) / STEPS;
  const reused = await timed(() => store.before(key(step)));
  let plan: Awaited<ReturnType<typeof planRollback>> | undefined;
  const rollbackPlan = await timed(async () => (plan = await planRollback(store, { conversation: 'bench', step: 1 })));
  const snap = await store.snapshot(ws);
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const lines = [
    `workspace: ${FILES} files in git (+200 ignored, 2 over 1 MiB); ${STEPS} steps of each kind; git ${execFileSync('git', ['--version']).toString().trim()}`,
    `first before-checkpoint (creates the shadow repository, hashes every file): ${ms(first)}; its after-checkpoint: ${ms(firstAfter)}`,
    `one file changed per step: before ${ms(median(one.before))}, after ${ms(median(one.after))} → ${ms(median(one.before.map((b, i) => b + one.after[i]!)))} per step (median); CPU ${ms(oneCpu)} per step (mean)`,
    `50 files changed per step: before ${ms(median(many.before))}, after ${ms(median(many.after))} → ${ms(median(many.before.map((b, i) => b + many.after[i]!)))} per step (median); CPU ${ms(manyCpu)} per step (mean)`,
    `second call of a step (reuses the before-checkpoint): ${ms(reused)}`,
    `rollback plan to step 1 (${step} steps, ${plan!.changes.length} paths): ${ms(rollbackPlan)}`,
    `load average during the run: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
    `left out as too large: ${snap.skipped.sort().join(', ')}; user's .git unchanged: ${gitDirState(ws) === userGit}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  rmSync(root, { recursive: true, force: true });
}

void main();
