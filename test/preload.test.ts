// The workflow bundle's preloaded modules (src/workflows/engine/preload.ts) are evaluated once per worker and shared,
// frozen, by every cached conversation. These checks keep that both safe and complete: nothing preloaded reaches
// @temporalio/workflow (its per-workflow state would be shared), no preloaded export is a regex (frozen, its lastIndex
// cannot be written: a `/g` replace throws, and so does zod's `.regex()` check, which resets it for any flags), and every workflow module that could be shared is — a module left out is
// evaluated again for each cached conversation (bench/memory-only.ts measures what that costs).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..');
const WORKFLOW_API = '@temporalio/workflow';

/** Value imports and re-exports of a source file (`import type` / `export type` load nothing at run time). */
function imports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'/gms)]
    .filter((m) => !/^(import|export)\s+type\s/.test(m[0]))
    .map((m) => (m[1] ?? m[2])!);
}

function resolve(from: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  const base = path.resolve(path.dirname(from), spec);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => existsSync(f)) ?? base;
}

function closure(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  if (entry.endsWith('.ts')) for (const spec of imports(entry)) closure(resolve(entry, spec), seen);
  return seen;
}

const reachesWorkflowApi = (file: string): boolean => closure(file).has(WORKFLOW_API);
const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');
const sources = (set: Set<string>) => [...set].filter((f) => f.endsWith('.ts'));

const preloaded = closure(path.join(ROOT, 'src/workflows/engine/preload.ts'));
const bundled = closure(path.join(ROOT, 'src/workflows/index.ts'));

describe('the preloaded workflow modules', () => {
  it('reach nothing of @temporalio/workflow', () => {
    expect(sources(preloaded).filter(reachesWorkflowApi).map(rel)).toEqual([]);
  });

  it('are every workflow module that does not need @temporalio/workflow', () => {
    const left = sources(bundled).filter((f) => !preloaded.has(f) && !reachesWorkflowApi(f));
    expect(left.map(rel), 'import these in src/workflows/engine/preload.ts').toEqual([]);
  });

  it('export no regex (the SDK freezes preloaded exports; a frozen lastIndex throws when written)', async () => {
    const found: string[] = [];
    for (const file of sources(preloaded)) {
      const seen = new WeakSet<object>();
      const scan = (value: unknown, where: string): void => {
        if (!value || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return;
        seen.add(value);
        if (value instanceof RegExp) {
          found.push(`${rel(file)}: ${where}`);
          return;
        }
        if (typeof value === 'function') return;
        for (const key of Object.keys(value)) scan((value as Record<string, unknown>)[key], `${where}.${key}`);
      };
      scan(await import(file), 'exports');
    }
    expect(found).toEqual([]);
  });

  it('finds a module that reaches @temporalio/workflow (the check itself works)', () => {
    expect(reachesWorkflowApi(path.join(ROOT, 'src/shared/messages.ts'))).toBe(true);
    expect(preloaded.has(path.join(ROOT, 'src/shared/credentials.ts'))).toBe(true);
  });
});
