// search_files' handler against a real workspace (no Temporal server).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { toolTestBed } from '../../../test/helpers/tool-context';
import { ToolError } from '../handler';
import { searchFiles } from './handler';

const bed = toolTestBed();
const { ctx } = bed;

describe('search_files', () => {
  it('stops a pattern that backtracks catastrophically after its time limit, with a clear error', async () => {
    // Unbounded, /(a+)+$/ on 64 a's and a "!" would keep the worker's event loop busy for longer than the universe.
    await fs.writeFile(path.join(bed.ws, 'evil.txt'), `ok line\n${'a'.repeat(64)}!\n`);
    // Its own limit's word, not a stopwatch: unstopped, the search would never end (and the test time out).
    await expect(searchFiles({ pattern: '(a+)+$' }, ctx())).rejects.toThrow(/took over 2 s on evil\.txt( … \S+)? \(catastrophic backtracking\)/);
    // A good pattern on the same file still works.
    expect(await searchFiles({ pattern: '^ok' }, ctx())).toBe('evil.txt:1: ok line');
  });

  beforeEach(async () => {
    await fs.mkdir(path.join(bed.ws, 'src'));
    await fs.writeFile(path.join(bed.ws, 'src/x.ts'), 'const a = 1;\n// TODO fix this\n');
    await fs.writeFile(path.join(bed.ws, 'src/y.js'), '// TODO in js\n');
    await fs.writeFile(path.join(bed.ws, 'src/blob.ts'), Buffer.concat([Buffer.from('TODO '), Buffer.from([0, 1, 2])]));
    await fs.mkdir(path.join(bed.ws, 'node_modules'));
    await fs.writeFile(path.join(bed.ws, 'node_modules/dep.ts'), 'TODO dep\n');
  });

  it('returns path:line: text, skipping binary files and node_modules', async () => {
    expect(await searchFiles({ pattern: 'TODO\\s+\\w+' }, ctx())).toBe('src/x.ts:2: // TODO fix this\nsrc/y.js:1: // TODO in js');
  });

  it('filters by glob and caps results', async () => {
    expect(await searchFiles({ pattern: 'TODO', glob: '*.ts' }, ctx())).toBe('src/x.ts:2: // TODO fix this');
    expect(await searchFiles({ pattern: '.', path: 'src', max_results: 1 }, ctx())).toBe(
      'src/x.ts:1: const a = 1;\n[reached max_results=1; there may be more — narrow the pattern, path or glob]',
    );
    expect(await searchFiles({ pattern: 'absent' }, ctx())).toBe('No matches for /absent/ in .');
  });

  it('rejects an invalid regex with a ToolError naming the problem', async () => {
    const err = await searchFiles({ pattern: 'foo(' }, ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toMatch(/^invalid regular expression "foo\(": .*Unterminated group/);
  });

  it('says a file is too large to search instead of reading it whole or claiming no match', async () => {
    const big = path.join(bed.ws, 'app.log');
    await fs.writeFile(big, 'ERROR first line\n');
    await fs.truncate(big, 25 * 1024 * 1024); // sparse: 25 MB on paper
    const out = await searchFiles({ pattern: 'ERROR', path: 'app.log' }, ctx());
    expect(out).toBe('No matches for /ERROR/ in app.log\n[not searched: app.log (25.0 MB: too large to search here; use terminal grep)]');
  });
});

// Globs (issue 14 item 7): `**`, directory parts and braces used to return "No matches" silently. One workspace
// for the whole block, made once.
describe('search_files glob', () => {
  let globWs: string;
  const globCtx = () => ({ ...ctx(), workspace: globWs });

  /** The files that had a hit, sorted (every file below contains "hit"). */
  async function filesFound(args: { glob: string; path?: string }): Promise<string[]> {
    const out = await searchFiles({ pattern: 'hit', ...args }, globCtx());
    if (!/^\S+:\d+: /.test(out)) return [out];
    return [...new Set(out.split('\n').map((l) => l.split(':')[0]!))].sort();
  }

  beforeAll(async () => {
    globWs = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'hermes-glob-')));
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
      await fs.mkdir(path.dirname(path.join(globWs, f)), { recursive: true });
      await fs.writeFile(path.join(globWs, f), 'hit\n');
    }
  });
  afterAll(async () => {
    await fs.rm(globWs, { recursive: true, force: true });
  });

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
    expect(await searchFiles({ pattern: 'absent', glob: '*.ts' }, globCtx())).toBe('No matches for /absent/ in . (files *.ts)');
  });
});
