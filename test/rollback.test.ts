// Checkpoints and rollback (src/checkpoints/): the tool activity snapshots the workspace into a shadow git repository
// before the first file-changing call of a step, the id is recorded with the call's result, and `hermes rollback`
// puts the workspace back as it was before a step, keeping what the user changed by hand. Real Temporal dev server,
// worker, git and files; only the model is scripted. Most rollbacks run in-process, one through the CLI.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { git } from '../src/checkpoints/git';
import { applyRollback, planRollback, rollbackDiff } from '../src/checkpoints/rollback';
import { checkpointSettings } from '../src/checkpoints/settings';
import { CheckpointStore, DEFAULT_MAX_FILE_BYTES } from '../src/checkpoints/store';
import { fetchRuns, stepRows } from '../src/inspect/step-context';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { spawnHermes } from './helpers/spawn-hermes';
import { gitDirState, userRepo } from './helpers/user-repo';

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Every file under dir (relative path → content), `.git` left out; directories end with `/`. */
function files(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.name === '.git' && !rel) continue;
    if (e.isDirectory()) Object.assign(out, { [`${p}/`]: '' }, files(dir, p));
    else out[p] = readFileSync(path.join(dir, p), 'utf8');
  }
  return out;
}

describe('checkpoints and rollback', () => {
  it('a conversation writes, patches and deletes over three steps; rollback --step 1 restores it and keeps the user’s edits', async () => {
    const store = new CheckpointStore({ dir: tempDir('hermes-cp-'), maxFileBytes: 64 * 1024 });
    let ws = '';
    h = await createHarness([
      // Step 1: two file-changing calls share one checkpoint.
      {
        toolCalls: [
          { id: 'w1', name: 'write_file', arguments: { path: 'new/a.txt', content: 'agent a\n' } },
          { id: 'w2', name: 'write_file', arguments: { path: 'c.txt', content: 'agent c\n' } },
        ],
      },
      // Between steps 1 and 2 the user edits a file by hand.
      () => {
        writeFileSync(path.join(ws, 'u.txt'), 'user edit\n');
        return toolCall('patch', { path: 'src/main.txt', old_string: 'one', new_string: 'ONE' }, 'p1');
      },
      toolCall('terminal', { command: 'rm b.txt' }, 't1'),
      // Read-only: no checkpoint.
      toolCall('terminal', { command: 'ls -la && cat src/main.txt' }, 't2'),
      answer('done'),
    ]);
    ws = h.workspace;
    mkdirSync(path.join(ws, 'src'));
    writeFileSync(path.join(ws, 'src/main.txt'), 'one\ntwo\n');
    writeFileSync(path.join(ws, 'b.txt'), 'bee\n');
    writeFileSync(path.join(ws, 'u.txt'), 'user original\n');
    writeFileSync(path.join(ws, '.gitignore'), '*.log\n');
    writeFileSync(path.join(ws, 'debug.log'), 'ignored, never snapshotted\n');
    userRepo(ws);
    const initial = files(ws);
    const userGit = gitDirState(ws);

    const { id, result, state } = await h.run(
      async () => {
        const run = await h!.hermes.start({ prompt: 'change files' });
        const result = await run.result();
        return { id: run.id, result, state: await run.state({ stepsAfter: 0 }) };
      },
      { checkpoints: store.settings },
    );
    expect(result.status).toBe('completed');
    expect(readFileSync(path.join(ws, 'src/main.txt'), 'utf8')).toBe('ONE\ntwo\n');

    // Recorded: each file-changing call's result carries its step's checkpoint; the read-only command has none.
    const rows = stepRows(await fetchRuns(h.client, id)).filter((r) => r.kind === 'tool');
    const cp = (call: string) => rows.find((r) => (r.input as { callId: string }).callId === call)!.checkpoint;
    expect(cp('w1')).toMatch(/^[0-9a-f]{40}$/);
    expect(cp('w2')).toBe(cp('w1'));
    expect(new Set([cp('w1'), cp('p1'), cp('t1')]).size).toBe(3);
    expect(cp('t2')).toBeUndefined();
    expect(rows.find((r) => r.checkpoint === cp('p1'))!.name).toContain(`(checkpoint ${cp('p1')!.slice(0, 12)})`);
    const records = state.steps.filter((s) => s.kind === 'tool').map((s) => [s.modelStep, s.name, s.checkpoint]);
    expect(records).toEqual([
      [1, 'write_file', cp('w1')],
      [1, 'write_file', cp('w1')],
      [2, 'patch', cp('p1')],
      [3, 'terminal', cp('t1')],
      [4, 'terminal', undefined],
    ]);
    const listed = await store.list(id);
    expect(listed!.steps.map((s) => [s.step, s.before])).toEqual([
      [1, cp('w1')],
      [2, cp('p1')],
      [3, cp('t1')],
    ]);

    // After the conversation the user edits a file the agent created.
    writeFileSync(path.join(ws, 'c.txt'), 'user c\n');
    const edited = files(ws);

    // --diff: what would change, nothing written.
    const plan = await planRollback(store, { conversation: id, step: 1 });
    const byPath = Object.fromEntries(plan.changes.map((c) => [c.path, c.action]));
    expect(byPath).toEqual({ 'new/a.txt': 'delete', 'c.txt': 'keep', 'src/main.txt': 'restore', 'b.txt': 'restore', 'u.txt': 'keep' });
    expect(plan.changes.find((c) => c.path === 'u.txt')!.why).toMatch(/changed by hand, not by the agent/);
    expect(plan.changes.find((c) => c.path === 'c.txt')!.why).toMatch(/changed by hand since the agent's step 1/);
    const diff = await rollbackDiff(plan);
    expect(diff).toContain('-agent a');
    expect(diff).toContain('+bee');
    expect(diff).toMatch(/-ONE\n\+one/);
    expect(diff).not.toContain('user');
    expect(files(ws)).toEqual(edited);
    // Without --step: the latest checkpoint (before step 3): only the deletion is undone.
    const latest = await planRollback(store, { conversation: id });
    expect([latest.checkpoint.step, latest.changes.filter((c) => c.action !== 'keep').map((c) => c.path)]).toEqual([3, ['b.txt']]);

    // --file: one file.
    await applyRollback(await planRollback(store, { conversation: id, step: 1, file: 'src/main.txt' }));
    expect(files(ws)).toEqual({ ...edited, 'src/main.txt': 'one\ntwo\n' });

    // The CLI: the rest of step 1 undone, the user's two edits kept.
    const cli = await spawnHermes(['rollback', id, '--step', '1'], { env: { HERMES_CHECKPOINT_DIR: store.settings.dir }, timeoutMs: 30_000 });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/keep +u\.txt/);
    expect(cli.stdout).toContain('2 file(s) put back, 2 kept');
    expect(files(ws)).toEqual({ ...initial, 'u.txt': 'user edit\n', 'c.txt': 'user c\n' });

    // --force: the user's edits too; the workspace is exactly as before step 1, ignored file and .git untouched.
    await applyRollback(await planRollback(store, { conversation: id, step: 1, force: true }));
    expect(files(ws)).toEqual(initial);
    expect(gitDirState(ws)).toBe(userGit);
  });

  it('never deletes or rewrites a file that was over the limit at the checkpoint: it says it cannot restore it and leaves it', async () => {
    const store = new CheckpointStore({ dir: tempDir('hermes-cp-'), maxFileBytes: DEFAULT_MAX_FILE_BYTES });
    h = await createHarness([
      {
        toolCalls: [
          { id: 'w1', name: 'write_file', arguments: { path: 'big.txt', content: 'the agent was here\n' } },
          { id: 'w2', name: 'write_file', arguments: { path: 'new.txt', content: 'agent made me\n' } },
        ],
      },
      toolCall('terminal', { command: 'printf more >> grow.bin' }, 't1'),
      answer('done'),
    ]);
    const ws = h.workspace;
    writeFileSync(path.join(ws, 'big.txt'), 'b'.repeat(2_000_000));
    writeFileSync(path.join(ws, 'grow.bin'), 'g'.repeat(1_500_000));
    writeFileSync(path.join(ws, 'small.txt'), 'small\n');
    const id = await h.run(
      async () => {
        const run = await h!.hermes.start({ prompt: 'overwrite big.txt' });
        expect((await run.result()).status).toBe('completed');
        return run.id;
      },
      { checkpoints: store.settings },
    );
    expect(readFileSync(path.join(ws, 'big.txt'), 'utf8')).toBe('the agent was here\n');
    const afterRun = files(ws);

    // Not "created by the agent", not deleted — with --force neither: there is no copy to put back.
    for (const force of [false, true]) {
      const plan = await planRollback(store, { conversation: id, step: 1, force });
      const byPath = Object.fromEntries(plan.changes.map((c) => [c.path, [c.action, c.unrestorable === true]]));
      expect(byPath, `force ${force}`).toEqual({ 'big.txt': ['keep', true], 'grow.bin': ['keep', true], 'new.txt': ['delete', false] });
      expect(plan.changes.find((c) => c.path === 'big.txt')!.why).toMatch(
        /existed before step 1 but was over the checkpoint limit \(2000000 > 1048576 bytes\)/,
      );
      expect(plan.changes.find((c) => c.path === 'big.txt')!.why).not.toMatch(/created by the agent/);
    }
    expect(files(ws)).toEqual(afterRun);

    const cli = await spawnHermes(['rollback', id, '--step', '1'], { env: { HERMES_CHECKPOINT_DIR: store.settings.dir }, timeoutMs: 30_000 });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(1); // partial: a script must not take it for a complete rollback
    expect(cli.stdout).toMatch(/keep +big\.txt .*cannot be restored and is left as it is/);
    expect(cli.stdout).not.toMatch(/delete +big\.txt/);
    expect(cli.stdout).toMatch(/delete +new\.txt/);
    expect(cli.stdout).toContain('2 file(s) cannot be restored, no copy in the checkpoint (over the size limit then), left as they are: ');
    const { 'new.txt': _gone, ...rest } = afterRun;
    expect(files(ws)).toEqual(rest);
    expect(readFileSync(path.join(ws, 'big.txt'), 'utf8')).toBe('the agent was here\n');
    expect(readFileSync(path.join(ws, 'grow.bin'), 'utf8')).toBe(`${'g'.repeat(1_500_000)}more`);
    void _gone;

    const forced = await spawnHermes(['rollback', id, '--step', '1', '--force'], {
      env: { HERMES_CHECKPOINT_DIR: store.settings.dir },
      timeoutMs: 30_000,
    });
    expect(forced.code).toBe(1);
    expect(forced.stdout).toMatch(/keep +big\.txt/);
    expect(files(ws)).toEqual(rest);
  });

  it('snapshots are per step, idempotent, concurrent-safe, and leave out ignored, huge and .git files', async () => {
    const settings = { dir: path.join(tempDir('hermes-cp-'), 'store'), maxFileBytes: 1000 };
    const ws = tempDir('hermes-cp-ws-');
    mkdirSync(path.join(ws, 'ignored'));
    writeFileSync(path.join(ws, '.gitignore'), 'ignored/\n');
    writeFileSync(path.join(ws, 'ignored/x.txt'), 'x');
    writeFileSync(path.join(ws, 'small.txt'), 'small');
    writeFileSync(path.join(ws, 'huge.bin'), 'h'.repeat(1001));
    userRepo(ws);
    const userGit = gitDirState(ws);
    const key = (conversation: string, step: number) => ({ workspace: ws, conversation, run: 'r', step });

    // Two "workers" (own store objects) on a fresh store, two conversations, each step's before and after, while
    // files change: no lost refs, no corrupt repository.
    const a = new CheckpointStore(settings);
    const b = new CheckpointStore(settings);
    for (let step = 1; step <= 6; step++) {
      await Promise.all([
        a.before(key('A', step)).then(() => a.after(key('A', step))),
        b.before(key('B', step)).then(() => b.after(key('B', step))),
        b.before(key('B', step)), // a second call of B's step, at the same time
        Promise.resolve().then(() => writeFileSync(path.join(ws, `f${step}.txt`), `step ${step}`)),
      ]);
    }
    const t = a.target(ws);
    await git(t, ['fsck', '--strict', '--no-dangling']);
    const [listA, listB] = [await a.list('A'), await b.list('B')];
    expect(listA!.steps.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(listB!.steps.every((s) => s.after)).toBe(true);

    // A retried attempt reuses the step's before-checkpoint, whatever changed since.
    const first = await a.before(key('C', 1));
    writeFileSync(path.join(ws, 'small.txt'), 'changed');
    expect(await a.before(key('C', 1))).toBe(first);
    expect(await a.before(key('C', 2))).not.toBe(first);

    const names = (await git(t, ['ls-tree', '-r', '--name-only', first])).stdout.split('\n').filter(Boolean);
    expect(names).toContain('small.txt');
    expect(names).toContain('.gitignore');
    expect(names.filter((n) => /^(ignored\/|huge\.bin|\.git\/)/.test(n))).toEqual([]);
    expect(readFileSync(path.join(settings.dir, path.basename(t.gitDir), 'hermes-workspace'), 'utf8')).toBe(ws);
    expect(gitDirState(ws)).toBe(userGit);
  });

  it('workers take checkpoints unless HERMES_CHECKPOINTS=off; the store and size limit come from the environment', () => {
    const home = tempDir('hermes-home-');
    expect(checkpointSettings({ HERMES_HOME: home })).toEqual({ dir: path.join(home, 'checkpoints'), maxFileBytes: DEFAULT_MAX_FILE_BYTES });
    expect(checkpointSettings({ HERMES_CHECKPOINTS: 'off' })).toBe(false);
    expect(checkpointSettings({ HERMES_CHECKPOINT_DIR: '/srv/cp', HERMES_CHECKPOINT_MAX_FILE_BYTES: '10' })).toEqual({
      dir: '/srv/cp',
      maxFileBytes: 10,
    });
    expect(() => checkpointSettings({ HERMES_CHECKPOINT_MAX_FILE_BYTES: '1M' })).toThrow(/whole number/);
  });
});
