// search_files globs (issue 14 item 7): `**`, directory parts and braces used to return "No matches" silently.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { searchFiles } from '../src/tools/search_files/handler';
import type { ToolContext } from '../src/tools/handler';

let ws: string;
const ctx = (): ToolContext => ({
  workspace: ws,
  signal: new AbortController().signal,
  heartbeat: () => undefined,
  terminalTimeoutSec: 30,
  callId: 'c1',
  processDir: os.tmpdir(),
});

/** The files that had a hit, sorted (every file below contains "hit"). */
async function filesFound(args: { glob: string; path?: string }): Promise<string[]> {
  const out = await searchFiles({ pattern: 'hit', ...args }, ctx());
  if (!/^\S+:\d+: /.test(out)) return [out];
  return [...new Set(out.split('\n').map((l) => l.split(':')[0]!))].sort();
}

beforeAll(async () => {
  ws = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'hermes-glob-')));
  for (const f of [
    'top.ts',
    'top.tsx',
    'top.js',
    '.hidden.ts',
    'src/a.ts',
    'src/b.tsx',
    'src/c.js',
    'src/deep/d.ts',
    'src/deep/e.test.ts',
    'lib/f.ts',
  ]) {
    await fs.mkdir(path.dirname(path.join(ws, f)), { recursive: true });
    await fs.writeFile(path.join(ws, f), 'hit\n');
  }
});
afterAll(async () => {
  await fs.rm(ws, { recursive: true, force: true });
});

describe('search_files glob', () => {
  it('**/*.ts finds .ts files at every depth, the top level included', async () => {
    expect(await filesFound({ glob: '**/*.ts' })).toEqual(['.hidden.ts', 'lib/f.ts', 'src/a.ts', 'src/deep/d.ts', 'src/deep/e.test.ts', 'top.ts']);
  });

  it('src/*.ts finds the .ts files directly in src only, searched from "." or from "src"', async () => {
    expect(await filesFound({ glob: 'src/*.ts' })).toEqual(['src/a.ts']);
    expect(await filesFound({ glob: 'src/*.ts', path: 'src' })).toEqual(['src/a.ts']);
    // Relative to the searched directory too.
    expect(await filesFound({ glob: 'deep/*.ts', path: 'src' })).toEqual(['src/deep/d.ts', 'src/deep/e.test.ts']);
  });

  it('*.{ts,tsx} matches both extensions by file name at any depth', async () => {
    expect(await filesFound({ glob: '*.{ts,tsx}' })).toEqual([
      '.hidden.ts',
      'lib/f.ts',
      'src/a.ts',
      'src/b.tsx',
      'src/deep/d.ts',
      'src/deep/e.test.ts',
      'top.ts',
      'top.tsx',
    ]);
  });

  it('keeps the old name globs: *.ts and ? match the file name at any depth', async () => {
    expect(await filesFound({ glob: '*.test.ts' })).toEqual(['src/deep/e.test.ts']);
    expect(await filesFound({ glob: '?.js' })).toEqual(['src/c.js']);
    expect(await filesFound({ glob: 'src/**/*.ts' })).toEqual(['src/a.ts', 'src/deep/d.ts', 'src/deep/e.test.ts']);
  });

  it('says so when the glob selects no file at all, apart from "no line matched"', async () => {
    expect(await filesFound({ glob: '*.py' })).toEqual(['No file in . matches the glob "*.py"']);
    expect(await searchFiles({ pattern: 'absent', glob: '*.ts' }, ctx())).toBe('No matches for /absent/ in . (files *.ts)');
  });
});
