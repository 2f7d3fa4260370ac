// Two conversations writing one file in a shared workspace (issue 14 item 7): patch's read-modify-write and
// write_file hold a per-path lock in the worker, so concurrent calls do not lose each other's changes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { patch, writeFile } from '../src/tools/handlers';
import { lockedPathCount, withPathLock } from '../src/tools/handlers/path-lock';
import type { ToolContext } from '../src/tools/spec';

let ws: string;
const ctx = (signal = new AbortController().signal): ToolContext => ({
  workspace: ws,
  signal,
  heartbeat: () => undefined,
  terminalTimeoutSec: 30,
  callId: 'c1',
  processDir: os.tmpdir(),
});

beforeEach(async () => {
  ws = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'hermes-lock-')));
});
afterEach(async () => {
  await fs.rm(ws, { recursive: true, force: true });
});

describe('per-path write lock', () => {
  it('concurrent patches of one file all land', async () => {
    const n = 12;
    await fs.writeFile(path.join(ws, 'shared.txt'), Array.from({ length: n }, (_, i) => `line ${i}: old`).join('\n') + '\n');
    // Half of the calls name the file through a symlink: the lock is keyed by the real path.
    await fs.symlink(path.join(ws, 'shared.txt'), path.join(ws, 'alias.txt'));
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        patch({ path: i % 2 ? 'alias.txt' : 'shared.txt', old_string: `line ${i}: old`, new_string: `line ${i}: new` }, ctx()),
      ),
    );
    expect(results).toEqual(Array.from({ length: n }, (_, i) => `Replaced 1 occurrence in ${i % 2 ? 'alias.txt' : 'shared.txt'}`));
    expect(await fs.readFile(path.join(ws, 'shared.txt'), 'utf8')).toBe(Array.from({ length: n }, (_, i) => `line ${i}: new`).join('\n') + '\n');
    expect(lockedPathCount()).toBe(0);
  });

  it('a write_file between patches is kept in order, never half-overwritten', async () => {
    await fs.writeFile(path.join(ws, 'f.txt'), 'a\n');
    const [p1, w, p2] = await Promise.all([
      patch({ path: 'f.txt', old_string: 'a', new_string: 'b' }, ctx()),
      writeFile({ path: 'f.txt', content: 'b c\n' }, ctx()),
      patch({ path: 'f.txt', old_string: 'c', new_string: 'd' }, ctx()),
    ]);
    expect([p1, w, p2]).toEqual(['Replaced 1 occurrence in f.txt', 'Wrote 4 bytes to f.txt', 'Replaced 1 occurrence in f.txt']);
    expect(await fs.readFile(path.join(ws, 'f.txt'), 'utf8')).toBe('b d\n');
  });

  it('a cancelled call stops waiting for the lock; the next waiter still waits for the holder', async () => {
    const order: string[] = [];
    let finishHolder!: () => void;
    const holder = withPathLock('/x', undefined, () => new Promise<void>((r) => (finishHolder = r)).then(() => void order.push('holder')));
    const abort = new AbortController();
    const cancelled = withPathLock('/x', abort.signal, async () => void order.push('cancelled ran'));
    const next = withPathLock('/x', undefined, async () => void order.push('next'));
    abort.abort(new Error('interrupted'));
    await expect(cancelled).rejects.toThrow('interrupted');
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    finishHolder();
    await Promise.all([holder, next]);
    expect(order).toEqual(['holder', 'next']);
    expect(lockedPathCount()).toBe(0);
  });
});
