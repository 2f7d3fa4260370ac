// The compiled copy of src/ that the hermes command loads instead of running the TypeScript through tsx: made
// once per content, remade after an edit, skipped (tsx then) when it cannot be made, and indistinguishable to the
// code that hashes or bundles the sources.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildId, workflowsPath } from '../src/startup/bundle';

const nodeRequire = createRequire(__filename);
const { compiledSources } = nodeRequire('../bin/compiled-sources.js') as {
  compiledSources: (o?: { src?: string; cache?: string; entry?: string }) => string | undefined;
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): { src: string; cache: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hermes-compiled-'));
  dirs.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, 'src', name)), { recursive: true });
    writeFileSync(path.join(root, 'src', name), text);
  }
  return { src: path.join(root, 'src'), cache: path.join(root, 'cache') };
}

function load(dir: string): { answer: () => number } {
  const file = path.join(dir, 'index.js');
  delete nodeRequire.cache[file];
  return nodeRequire(file) as { answer: () => number };
}

describe('compiled sources', () => {
  it('compiles once per content and again after an edit', () => {
    const { src, cache } = tree({
      'index.ts': "import { base } from './lib/base';\nexport const answer = (): number => base + 1;\n",
      'lib/base.ts': 'export const base: number = 41;\n',
      'lib/base.test.ts': 'this is not compiled',
    });
    const first = compiledSources({ src, cache, entry: 'index.js' });
    expect(first).toBeDefined();
    expect(load(first!).answer()).toBe(42);
    expect(existsSync(path.join(first!, 'lib', 'base.test.js'))).toBe(false);

    // A second start reuses the copy: a marker left in it survives.
    writeFileSync(path.join(first!, 'marker'), '');
    expect(compiledSources({ src, cache, entry: 'index.js' })).toBe(first);
    expect(existsSync(path.join(first!, 'marker'))).toBe(true);

    const file = path.join(src, 'lib', 'base.ts');
    writeFileSync(file, 'export const base: number = 99;\n');
    const later = new Date(Date.now() + 5000);
    utimesSync(file, later, later);
    const second = compiledSources({ src, cache, entry: 'index.js' });
    expect(second).not.toBe(first);
    expect(load(second!).answer()).toBe(100);
  });

  it('gives up (tsx then) on a source it cannot compile, leaving nothing half made', () => {
    const { src, cache } = tree({ 'index.ts': 'export const answer = (: number => 1;\n' });
    expect(compiledSources({ src, cache, entry: 'index.js' })).toBeUndefined();
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
  });

  it('gives the bundle and the build id the sources of src/, not of the copy', () => {
    const dir = compiledSources();
    expect(dir).toBeDefined();
    const copy = nodeRequire(path.join(dir!, 'startup', 'bundle.js')) as { buildId: () => string; workflowsPath: () => string };
    expect(copy.workflowsPath()).toBe(workflowsPath());
    expect(readFileSync(copy.workflowsPath(), 'utf8')).toContain('export');
    expect(copy.buildId()).toBe(buildId());
  });
});
