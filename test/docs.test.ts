// docs/reference/tools.md documents the safety rules and tools; these checks keep it true when the code changes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOL_SPECS } from '../src/tools/registry';
import { TERMINAL_RULES } from '../src/tools/terminal/command-safety';

const tools = readFileSync('docs/reference/tools.md', 'utf8');

describe('docs/reference/tools.md', () => {
  it('lists every terminal safety rule with its verdict', () => {
    for (const r of TERMINAL_RULES) expect(tools).toContain(`| \`${r.pattern}\` | ${r.verdict} |`);
  });

  it('lists every tool', () => {
    for (const t of TOOL_SPECS) expect(tools).toContain(`| \`${t.name}\` |`);
  });
});
