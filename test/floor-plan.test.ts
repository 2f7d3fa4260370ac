// The floor plan stays readable (docs/architecture.md): src/ root holds the entry points users import and
// little else, and no two names in src/ are one letter apart (serve/server, tool-call/tool-calls were).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.join(__dirname, '..', 'src');

/** Every file and folder name under src/, a file's without its `.test.ts`/`.ts`/`.md` ending. */
function namesUnder(dir: string, out = new Set<string>()): Set<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    out.add(e.isDirectory() ? e.name : e.name.replace(/(\.test)?\.(ts|md)$/, ''));
    if (e.isDirectory()) namesUnder(path.join(dir, e.name), out);
  }
  return out;
}

/** True when b is a with one letter changed, added or removed. */
export function oneLetterApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

describe('the floor plan', () => {
  it('keeps at most three files at the root of src/, worker.ts and client.ts among them', () => {
    const files = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
    expect(files).toEqual(expect.arrayContaining(['worker.ts', 'client.ts']));
    expect(files.length).toBeLessThanOrEqual(3);
  });

  it('has no two names one letter apart', () => {
    const names = [...namesUnder(SRC)].sort();
    const pairs: string[] = [];
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) if (oneLetterApart(names[i]!, names[j]!)) pairs.push(`${names[i]} / ${names[j]}`);
    }
    expect(pairs).toEqual([]);
  });

  it('tells one-letter twins apart from different names', () => {
    expect(oneLetterApart('serve', 'server')).toBe(true);
    expect(oneLetterApart('tool-call', 'tool-calls')).toBe(true);
    expect(oneLetterApart('context', 'content')).toBe(true);
    expect(oneLetterApart('spec', 'spec')).toBe(false);
    expect(oneLetterApart('turn', 'chat')).toBe(false);
  });
});
