// write_file's handler against a real workspace (no Temporal server).
import { describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { toolTestBed } from '../../../test/helpers/tool-context';
import { readFile } from '../read_file/handler';
import { writeFile } from './handler';

const bed = toolTestBed();
const { ctx } = bed;

describe('write_file', () => {
  it('says clearly when a part of the path is a file', async () => {
    await fs.writeFile(path.join(bed.ws, 'same.txt'), 'x');
    await expect(writeFile({ path: 'same.txt/inner.txt', content: 'y' }, ctx())).rejects.toThrow(
      /cannot write same\.txt\/inner\.txt: a part of its directory path is a file/,
    );
    await expect(writeFile({ path: '.', content: 'y' }, ctx())).rejects.toThrow(/\. is a directory/);
  });

  it('writes (creating parent directories) and reads back', async () => {
    expect(await writeFile({ path: 'a/b/c.txt', content: 'héllo\nworld\n' }, ctx())).toBe('Wrote 13 bytes to a/b/c.txt');
    expect(await fs.readFile(path.join(bed.ws, 'a/b/c.txt'), 'utf8')).toBe('héllo\nworld\n');
    expect(await readFile({ path: 'a/b/c.txt' }, ctx())).toBe('   1| héllo\n   2| world\n[lines 1-2 of 2; end of file]');
  });
});
