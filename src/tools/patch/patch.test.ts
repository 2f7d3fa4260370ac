// patch's handler against a real workspace (no Temporal server).
import { beforeEach, describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { toolTestBed } from '../../../test/helpers/tool-context';
import { ToolError } from '../handler';
import { patch } from './handler';

const bed = toolTestBed();
const { ctx } = bed;

describe('patch', () => {
  it('edits a CRLF file with its own line endings, and leaves a file alone when nothing changes', async () => {
    await fs.writeFile(path.join(bed.ws, 'win.txt'), 'a\r\nb1\r\nb2\r\nc\r\n');
    await fs.chmod(path.join(bed.ws, 'win.txt'), 0o751);
    // What the model saw through read_file: lines without \r.
    expect(await patch({ path: 'win.txt', old_string: 'b1\nb2', new_string: 'B1\nB2\nB3' }, ctx())).toBe('Replaced 1 occurrence in win.txt');
    expect(await fs.readFile(path.join(bed.ws, 'win.txt'), 'utf8')).toBe('a\r\nB1\r\nB2\r\nB3\r\nc\r\n');
    expect((await fs.stat(path.join(bed.ws, 'win.txt'))).mode & 0o777).toBe(0o751); // written atomically, mode kept
    const before = (await fs.stat(path.join(bed.ws, 'win.txt'))).mtimeMs;
    expect(await patch({ path: 'win.txt', old_string: 'c', new_string: 'c' }, ctx())).toMatch(/^No change/);
    expect((await fs.stat(path.join(bed.ws, 'win.txt'))).mtimeMs).toBe(before);
    expect((await fs.readdir(bed.ws)).filter((n) => n.includes('.hermes-'))).toEqual([]); // no temp file left
  });

  it('leaves a file that is not UTF-8 alone', async () => {
    const latin1 = Buffer.from('café naïve one\n', 'latin1');
    await fs.writeFile(path.join(bed.ws, 'l1.txt'), latin1);
    await expect(patch({ path: 'l1.txt', old_string: 'one', new_string: 'ONE' }, ctx())).rejects.toThrow(/l1\.txt is not valid UTF-8 text/);
    expect(await fs.readFile(path.join(bed.ws, 'l1.txt'))).toEqual(latin1);
  });

  it('leaves a binary file alone', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x61, 0x62]);
    await fs.writeFile(path.join(bed.ws, 'img.png'), bytes);
    await expect(patch({ path: 'img.png', old_string: 'ab', new_string: 'cd' }, ctx())).rejects.toThrow(/img\.png is a binary file \(9 bytes\)/);
    expect(await fs.readFile(path.join(bed.ws, 'img.png'))).toEqual(bytes);
  });

  beforeEach(async () => {
    await fs.writeFile(path.join(bed.ws, 'p.txt'), 'a = 1\nb = 1\nc = 1\n');
  });

  it('replaces one exact occurrence, inserting new_string literally', async () => {
    expect(await patch({ path: 'p.txt', old_string: 'b = 1', new_string: 'b = $&2' }, ctx())).toBe('Replaced 1 occurrence in p.txt');
    expect(await fs.readFile(path.join(bed.ws, 'p.txt'), 'utf8')).toBe('a = 1\nb = $&2\nc = 1\n');
  });

  it('fails clearly when old_string is missing', async () => {
    const err = await patch({ path: 'p.txt', old_string: 'z = 1', new_string: 'x' }, ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toMatch(/^old_string was not found in p\.txt/);
    // A small file is shown as it is, so the next try can copy from it.
    expect((err as Error).message).toContain('Its text now:\na = 1\nb = 1\nc = 1\n');
  });

  it('does not show a large file when old_string is missing', async () => {
    await fs.writeFile(path.join(bed.ws, 'big.txt'), 'x = 1\n'.repeat(1_000));
    const err = await patch({ path: 'big.txt', old_string: 'z = 1', new_string: 'x' }, ctx()).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      'old_string was not found in big.txt; copy the text to replace exactly, including whitespace (read the file again first)',
    );
  });

  it('refuses an ambiguous match and says how many, leaving the file unchanged', async () => {
    await expect(patch({ path: 'p.txt', old_string: ' = 1', new_string: ' = 2' }, ctx())).rejects.toThrow(/old_string appears 3 times in p\.txt/);
    expect(await fs.readFile(path.join(bed.ws, 'p.txt'), 'utf8')).toBe('a = 1\nb = 1\nc = 1\n');
  });

  it('replaces every occurrence with replace_all', async () => {
    expect(await patch({ path: 'p.txt', old_string: ' = 1', new_string: ' = 2', replace_all: true }, ctx())).toBe('Replaced 3 occurrences in p.txt');
    expect(await fs.readFile(path.join(bed.ws, 'p.txt'), 'utf8')).toBe('a = 2\nb = 2\nc = 2\n');
  });
});
