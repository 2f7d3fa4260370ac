// The docs stay a map that leads somewhere: the README is a front door (short), every relative link in the
// markdown resolves to a file and, with an #anchor, to a heading in it, and docs/architecture.md names files that
// exist for each path a step takes through src/.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

function markdownUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return markdownUnder(rel);
    return e.name.endsWith('.md') ? [rel] : [];
  });
}
const PAGES = ['README.md', 'CONTRIBUTING.md', ...markdownUnder('docs')];

/** The text outside fenced code blocks, with inline code spans blanked (a link inside them is no link). */
function prose(md: string): string {
  let fenced = false;
  return md
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/`[^`]*`/g, 'code');
    })
    .join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
function anchorsOf(md: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of md.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const h = /^#{1,6} (.*)$/.exec(line);
    if (h) {
      const base = h[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- _]/gu, '')
        .replace(/ /g, '-');
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n ? `${base}-${n}` : base);
    }
    for (const a of line.matchAll(/<a id="([^"]+)"><\/a>/g)) out.add(a[1]!);
  }
  return out;
}

/** Every relative link target of a page: [text](target), without external URLs. */
function relativeLinks(md: string): string[] {
  return [...prose(md).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** What is wrong with one link of `page` (a path from the repo root), or undefined when it leads somewhere. */
function brokenLink(page: string, target: string, readPage: (rel: string) => string = read): string | undefined {
  const [file, anchor] = target.split('#') as [string, string | undefined];
  const rel = file ? path.posix.normalize(path.posix.join(path.posix.dirname(page), file)) : page;
  if (rel.startsWith('..') || !existsSync(path.join(ROOT, rel))) return `${target}: no file ${rel}`;
  if (anchor === undefined) return undefined;
  if (statSync(path.join(ROOT, rel)).isDirectory() || !rel.endsWith('.md')) return `${target}: an anchor in a file that is not markdown`;
  return anchorsOf(readPage(rel)).has(anchor) ? undefined : `${target}: no heading #${anchor} in ${rel}`;
}

/** The five paths docs/architecture.md traces, as their headings name them. */
const PATHS = ['A model step', 'A tool call', 'An interrupt', 'A continue-as-new', 'A delegation'];

/** The section of `md` under the heading that starts with `title`, up to the next heading of that level or above. */
function section(md: string, title: string): string | undefined {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^#{2,4} ${title}\\b`).test(l));
  if (at < 0) return undefined;
  const level = /^#+/.exec(lines[at]!)![0].length;
  const end = lines.findIndex((l, i) => i > at && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(at, end < 0 ? undefined : end).join('\n');
}

/** The backticked src/ paths of a text (`src/workflows/loop/turn.ts`, `src/inspect/`). */
const srcPaths = (text: string) => [...text.matchAll(/`(src\/[\w./-]+)`/g)].map((m) => m[1]!);

describe('the docs', () => {
  it('keep the README a front door of at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('link only to files and headings that exist', () => {
    const broken = PAGES.flatMap((page) =>
      relativeLinks(read(page))
        .flatMap((t) => brokenLink(page, t) ?? [])
        .map((b) => `${page}: ${b}`),
    );
    expect(broken).toEqual([]);
  });

  it('catch a broken link: a missing file, a missing heading, a path out of the repository', () => {
    const page = 'docs/guides/from-code.md';
    expect(brokenLink(page, '../reference/cli.md')).toBeUndefined();
    expect(brokenLink(page, '../reference/cli.md#hermes-help')).toBeUndefined();
    expect(brokenLink(page, '../reference/no-such-page.md')).toMatch(/no file docs\/reference\/no-such-page.md/);
    expect(brokenLink(page, '../reference/cli.md#no-such-heading')).toMatch(/no heading #no-such-heading/);
    expect(brokenLink(page, '#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('README.md', '../outside.md')).toMatch(/no file/);
  });

  it('make anchors as GitHub does', () => {
    expect([...anchorsOf('# Live output: `events()`, `hermes watch`\n## Sub-agents (`delegate_task`)\n## A\n## A')]).toEqual([
      'live-output-events-hermes-watch',
      'sub-agents-delegate_task',
      'a',
      'a-1',
    ]);
    expect(relativeLinks('[a](x.md) `[b](y.md)` [c](https://e.com)\n```\n[d](z.md)\n```')).toEqual(['x.md']);
  });

  it('trace each of the five paths in docs/architecture.md through files that exist in src/', () => {
    const arch = read('docs/architecture.md');
    for (const title of PATHS) {
      const text = section(arch, title);
      expect(text, `docs/architecture.md has no section "${title}"`).toBeDefined();
      const files = srcPaths(text!);
      expect(files.length, `"${title}" names at least three src/ files`).toBeGreaterThanOrEqual(3);
      for (const f of files) expect(existsSync(path.join(ROOT, f)), `"${title}": ${f} does not exist`).toBe(true);
    }
    for (const f of srcPaths(arch)) expect(existsSync(path.join(ROOT, f)), `docs/architecture.md names ${f}, which does not exist`).toBe(true);
  });
});
