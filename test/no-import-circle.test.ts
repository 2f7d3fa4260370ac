// No import circle in src/, `import type` included: a circle means two modules are one concern split in the wrong
// place (state beside the rules that read it, a library module reaching into the CLI), and a type-only circle is
// the same wrong split, only hidden from the runtime. The graph is read with the TypeScript compiler's own import
// scanner and module resolution, so every kind of import counts: `import`, `import type`, `export ... from`,
// `import('x')` (a call or a type) and `require('x')`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..');
const SRC = path.join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every module specifier a source text names, however it names it (the compiler's own import scanner). */
export function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** src/ file → the src/ files it imports (paths relative to the repository root). */
export function importGraph(files: string[]): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const options = config?.options ?? {};
  const cache = ts.createModuleResolutionCache(ROOT, (f) => f, options);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    // Only relative paths reach another src/ file (tsconfig.json maps no path aliases); packages are left out.
    for (const spec of specifiers(readFileSync(file, 'utf8')).filter((s) => s.startsWith('.'))) {
      const resolved = ts.resolveModuleName(spec, file, options, ts.sys, cache).resolvedModule?.resolvedFileName;
      if (resolved && resolved.startsWith(SRC + path.sep) && !resolved.includes(`${path.sep}node_modules${path.sep}`)) {
        targets.add(path.relative(ROOT, resolved));
      }
    }
    graph.set(path.relative(ROOT, file), [...targets].sort());
  }
  return graph;
}

/** Each circle once, as the files around it (starting at its alphabetically first file). */
export function circles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        const loop = stack.slice(stack.indexOf(next));
        const first = loop.indexOf([...loop].sort()[0]!);
        const rotated = [...loop.slice(first), ...loop.slice(0, first)];
        found.set(rotated.join(' → '), rotated);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return [...found.values()];
}

describe('imports in src/', () => {
  it('form no circle, type-only imports included', () => {
    const found = circles(importGraph(sourceFiles(SRC))).map((loop) => [...loop, loop[0]].join(' → '));
    expect(found).toEqual([]);
  });

  it('are all seen: type imports, re-exports, import() and require count', () => {
    const text = [
      "import type { A } from './a';",
      "export { B } from './b';",
      "type C = import('./c').C;",
      "const d = () => import('./d');",
      "const e = require('./e');",
      "import f = require('./f');",
    ].join('\n');
    expect(specifiers(text)).toEqual(['./a', './b', './c', './d', './e', './f']);
  });

  it('finds a circle, and names each one once', () => {
    const graph = new Map([
      ['b', ['c']],
      ['c', ['a']],
      ['a', ['b', 'd']],
      ['d', []],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c']]);
    expect(circles(new Map([['a', ['a']]]))).toEqual([['a']]);
  });
});
