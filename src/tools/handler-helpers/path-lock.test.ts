// Two conversations writing one file in a shared workspace (issue 14 item 7): patch's read-modify-write and
// write_file hold a per-path lock in the worker, so concurrent calls do not lose each other's changes.
import { describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { toolTestBed } from '../../../test/helpers/tool-context';
import { patch } from '../patch/handler';
import { writeFile } from '../write_file/handler';
import { lockedPathCount, withPathLock } from './path-lock';

const bed = toolTestBed('hermes-lock-');
const ctx = (signal = new AbortController().signal) => bed.ctx({ signal });

describe('per-path write lock', () => {
  it('concurrent patches of one file all land', async () => {
    const n = 12;
    await fs.writeFile(path.join(bed.ws, 'shared.txt'), Array.from({ length: n }, (_, i) => `line ${i}: old`).join('\n') + '\n');
    // Half of the calls name the file through a symlink: the lock is keyed by the real path.
    await fs.symlink(path.join(bed.ws, 'shared.txt'), path.join(bed.ws, 'alias.txt'));
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        patch({ path: i % 2 ? 'alias.txt' : 'shared.txt', old_string: `line ${i}: old`, new_string: `line ${i}: new` }, ctx()),
      ),
    );
    expect(results).toEqual(Array.from({ length: n }, (_, i) => `Replaced 1 occurrence in ${i % 2 ? 'alias.txt' : 'shared.txt'}`));
    expect(await fs.readFile(path.join(bed.ws, 'shared.txt'), 'utf8')).toBe(Array.from({ length: n }, (_, i) => `line ${i}: new`).join('\n') + '\n');
    expect(lockedPathCount()).toBe(0);
  });

  it('a write_file between patches: the outcome is one of the serial orders, never a half-overwritten file', async () => {
    // The lock makes each read-modify-write atomic; it does not order calls that race for it (each resolves its
    // real path first). So the result must equal running the three calls one at a time in some order.
    await fs.writeFile(path.join(bed.ws, 'f.txt'), 'a\n');
    type Op = { kind: 'patch'; from: string; to: string } | { kind: 'write'; content: string };
    const ops: Op[] = [
      { kind: 'patch', from: 'a', to: 'b' },
      { kind: 'write', content: 'b c\n' },
      { kind: 'patch', from: 'c', to: 'd' },
    ];
    const settled = await Promise.allSettled(
      ops.map((op) =>
        op.kind === 'patch'
          ? patch({ path: 'f.txt', old_string: op.from, new_string: op.to }, ctx())
          : writeFile({ path: 'f.txt', content: op.content }, ctx()),
      ),
    );
    const actual = { ok: settled.map((r) => r.status === 'fulfilled'), file: await fs.readFile(path.join(bed.ws, 'f.txt'), 'utf8') };
    const serial = (order: number[]) => {
      let text = 'a\n';
      const ok = [false, false, false];
      for (const i of order) {
        const op = ops[i]!;
        if (op.kind === 'write') [text, ok[i]] = [op.content, true];
        else if (text.includes(op.from)) [text, ok[i]] = [text.replace(op.from, op.to), true];
      }
      return { ok, file: text };
    };
    const orders = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    expect(orders.map(serial)).toContainEqual(actual);
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
