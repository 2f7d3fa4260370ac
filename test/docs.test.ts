// The README documents the safety rules and tools; these checks keep it true when the code changes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOL_SPECS } from '../src/tools/registry';
import { TERMINAL_RULES } from '../src/tools/terminal/command-safety';

const readme = readFileSync('README.md', 'utf8');

describe('README', () => {
  it('lists every terminal safety rule with its verdict', () => {
    for (const r of TERMINAL_RULES) expect(readme).toContain(`| \`${r.pattern}\` | ${r.verdict} |`);
  });

  it('lists every tool', () => {
    for (const t of TOOL_SPECS) expect(readme).toContain(`| \`${t.name}\` |`);
  });
});
