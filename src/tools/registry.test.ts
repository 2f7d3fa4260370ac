// The built-in tools' registry: metadata, handlers for the activity tools, approvals, schemas fit for the sandbox.
import { describe, expect, it } from 'vitest';
import { BUILTIN_HANDLERS } from './handler-registry';
import { approvalVerdict, TOOL_SPECS, toolDefinitions } from './registry';

describe('specs', () => {
  it('registers the file and terminal tools with metadata, and a handler for every tool the workflow does not run', () => {
    expect(TOOL_SPECS.slice(0, 6).map((s) => [s.name, s.concurrency, s.idempotent])).toEqual([
      ['read_file', 'read', true],
      ['write_file', 'write', true],
      ['patch', 'write', false],
      ['list_dir', 'read', true],
      ['search_files', 'read', true],
      ['terminal', 'write', false],
    ]);
    const activityTools = TOOL_SPECS.filter((s) => !s.internal).map((s) => s.name);
    expect(Object.keys(BUILTIN_HANDLERS)).toEqual(activityTools);
    expect(TOOL_SPECS.filter((s) => s.internal).map((s) => s.name)).toEqual(['todo', 'clarify', 'delegate_task']);
  });

  it("asks for approval only by a tool's own rule: terminal's classifier, nothing for other names", () => {
    expect(approvalVerdict('terminal', { command: 'rm -rf /' })).toMatchObject({ verdict: 'refuse', pattern: 'rm-root' });
    expect(approvalVerdict('terminal', { command: 'ls' })).toEqual({ verdict: 'allow' });
    // A catalog tool may be named like an Object.prototype member: it has no rule (a table lookup found one).
    for (const name of ['read_file', 'my_tool', 'constructor', 'toString'])
      expect(approvalVerdict(name, { command: 'rm -rf /' })).toEqual({ verdict: 'allow' });
  });

  it('uses no zod string formats or regex patterns: the workflow sandbox shares a frozen zod', () => {
    // zod is a preloaded module (src/workflows/engine/preload.ts); the SDK deep-freezes it, and zod's format checks
    // (email, uuid, date, regex…) reset `lastIndex` on its shared, frozen RegExps — a TypeError in the workflow.
    const checked: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (n.type === 'string') {
        checked.push(where);
        expect(n.format, where).toBeUndefined();
        expect(n.pattern, where).toBeUndefined();
      }
      for (const [k, v] of Object.entries(n)) walk(v, `${where}.${k}`);
    };
    for (const spec of TOOL_SPECS) walk(toolDefinitions([spec.name])[0]!.function.parameters, spec.name);
    expect(checked).toContain('search_files.properties.pattern');
  });
});
