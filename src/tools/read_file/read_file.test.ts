// read_file's handler against a real workspace (no Temporal server).
import { describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { toolTestBed } from '../../../test/helpers/tool-context';
import { ToolError } from '../handler';
import { readFile } from './handler';

const bed = toolTestBed();
const { ctx } = bed;

describe('read_file', () => {
  it('pages with offset and limit and says how to get the next page', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
    await fs.writeFile(path.join(bed.ws, 'f.txt'), lines.join('\n') + '\n');
    expect(await readFile({ path: 'f.txt', offset: 5, limit: 3 }, ctx())).toBe(
      '   5| line 5\n   6| line 6\n   7| line 7\n' + '[lines 5-7 of 12; 5 more — call read_file with offset=8 for the next page]',
    );
    expect(await readFile({ path: 'f.txt', offset: 11 }, ctx())).toBe('  11| line 11\n  12| line 12\n[lines 11-12 of 12; end of file]');
    await expect(readFile({ path: 'f.txt', offset: 13 }, ctx())).rejects.toThrow('offset 13 is past the end of f.txt (12 lines)');
  });

  it('returns 500 lines by default', async () => {
    await fs.writeFile(path.join(bed.ws, 'big.txt'), Array.from({ length: 600 }, (_, i) => `x${i + 1}`).join('\n'));
    const out = (await readFile({ path: 'big.txt' }, ctx())).split('\n');
    expect(out).toHaveLength(501);
    expect(out[499]).toBe(' 500| x500');
    expect(out[500]).toBe('[lines 1-500 of 600; 100 more — call read_file with offset=501 for the next page]');
  });

  it('reports missing files, directories and binary files as ToolErrors', async () => {
    await expect(readFile({ path: 'nope.txt' }, ctx())).rejects.toThrow(new ToolError('no such file or directory: nope.txt'));
    await fs.mkdir(path.join(bed.ws, 'd'));
    await expect(readFile({ path: 'd' }, ctx())).rejects.toThrow('d is a directory');
    await fs.writeFile(path.join(bed.ws, 'bin'), Buffer.from([1, 0, 2]));
    await expect(readFile({ path: 'bin' }, ctx())).rejects.toThrow('bin is a binary file (3 bytes)');
  });
});
