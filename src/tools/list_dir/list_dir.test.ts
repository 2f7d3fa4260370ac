// list_dir's handler against a real workspace (no Temporal server).
import { beforeEach, describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { toolTestBed } from '../../../test/helpers/tool-context';
import { listDir, MAX_LIST_ENTRIES } from './handler';

const bed = toolTestBed();
const { ctx } = bed;

describe('list_dir', () => {
  beforeEach(async () => {
    await fs.writeFile(path.join(bed.ws, 'a.txt'), 'hello');
    await fs.mkdir(path.join(bed.ws, 'src/deep'), { recursive: true });
    await fs.writeFile(path.join(bed.ws, 'src/x.ts'), 'x'.repeat(2048));
    await fs.writeFile(path.join(bed.ws, 'src/deep/y.ts'), '');
    await fs.mkdir(path.join(bed.ws, 'node_modules/pkg'), { recursive: true });
    await fs.writeFile(path.join(bed.ws, 'node_modules/pkg/index.js'), '');
    await fs.mkdir(path.join(bed.ws, '.git'));
    await fs.writeFile(path.join(bed.ws, '.git/HEAD'), 'ref');
  });

  it('lists one level by default with / for directories and sizes for files', async () => {
    expect(await listDir({}, ctx())).toBe('.git/\na.txt (5 B)\nnode_modules/\nsrc/');
  });

  it('descends to the requested depth but not into node_modules or .git', async () => {
    expect(await listDir({ path: '.', depth: 3 }, ctx())).toBe(
      '.git/\na.txt (5 B)\nnode_modules/\nsrc/\nsrc/deep/\nsrc/deep/y.ts (0 B)\nsrc/x.ts (2.0 KB)',
    );
    expect(await listDir({ path: 'src', depth: 1 }, ctx())).toBe('deep/\nx.ts (2.0 KB)');
  });

  it('stops at 500 entries with a note', async () => {
    await fs.mkdir(path.join(bed.ws, 'many'));
    await Promise.all(Array.from({ length: 600 }, (_, i) => fs.writeFile(path.join(bed.ws, 'many', `f${String(i).padStart(3, '0')}`), '')));
    const out = (await listDir({ path: 'many' }, ctx())).split('\n');
    expect(out).toHaveLength(MAX_LIST_ENTRIES + 1);
    expect(out[499]).toBe('f499 (0 B)');
    expect(out[500]).toMatch(/^\[listing stopped at 500 entries/);
  });
});
