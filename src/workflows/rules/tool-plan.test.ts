// The plan for one reply's tool calls, with the real tool specs: which calls run (and under which name), which
// become an error result for the model, which are duplicates, and which run together.
import { describe, expect, it } from 'vitest';
import { toolSpec } from '../../tools/registry';
import { catalogToolSpec } from '../loop/tool-list';
import { TOO_LARGE_MARKER, type ToolCall } from '../../shared/wire';
import { batchCalls, planToolCalls, repairToolName, type PlannedCall } from './tool-plan';

const OFFERED = ['read_file', 'write_file', 'list_dir', 'terminal'];
let n = 0;
/** `args` as the model sent them: usually text; an object is what an older worker may have passed on. */
const call = (name: string, args: string | object): ToolCall => ({ id: `c${++n}`, type: 'function', function: { name, arguments: args as string } });
const json = (name: string, args: object) => call(name, JSON.stringify(args));
const plan = (...calls: ToolCall[]) => planToolCalls(calls, OFFERED, toolSpec);
const content = (p: PlannedCall | undefined) => (p?.kind === 'invalid' ? p.content : `not invalid: ${p?.kind}`);

describe('planToolCalls', () => {
  it('runs a call to an offered tool with valid arguments, in the order the model gave', () => {
    const [a, b] = plan(json('read_file', { path: 'a.txt' }), json('terminal', { command: 'ls' }));
    expect(a).toMatchObject({ kind: 'run', name: 'read_file', args: { path: 'a.txt' }, spec: { name: 'read_file' } });
    expect(a).not.toHaveProperty('repairedFrom');
    expect(b).toMatchObject({ kind: 'run', name: 'terminal', args: { command: 'ls' } });
  });

  it('turns an unknown or unoffered tool into an error result that lists what is offered', () => {
    const [unknown, unoffered] = plan(json('read_everything', {}), json('web_fetch', { url: 'https://x.test/' }));
    expect(content(unknown)).toBe('Error: unknown tool "read_everything". Available tools: read_file, write_file, list_dir, terminal.');
    expect(content(unoffered)).toMatch(/^Error: unknown tool "web_fetch"/);
  });

  it('repairs an obvious misspelling of an offered name and says what it was called', () => {
    for (const raw of ['Read-File', 'read_file_tool', 'functions.read_file', ' READ FILE ']) {
      expect(plan(json(raw, { path: 'a.txt' }))[0]).toMatchObject({ kind: 'run', name: 'read_file', repairedFrom: raw });
    }
    // Two offered names that the repair cannot tell apart: no guess.
    expect(repairToolName('web-fetch', ['web_fetch', 'Web_Fetch'])).toBeUndefined();
    expect(repairToolName('Web_Fetch', ['web_fetch', 'Web_Fetch'])).toBe('Web_Fetch');
  });

  it('tells the model why arguments are not a JSON object', () => {
    const [bad, array, big] = plan(
      call('read_file', '{"path": "a.txt"'),
      call('read_file', '["a.txt"]'),
      call('write_file', `${TOO_LARGE_MARKER}90000 characters`),
    );
    expect(content(bad)).toMatch(/^Error: the arguments of read_file are not a JSON object \(invalid JSON: .+\)\. Call it again/);
    expect(content(array)).toContain('(got an array)');
    expect(content(big)).toContain('(too large to record: 90000 characters; send big content in several smaller calls)');
  });

  it('accepts arguments already parsed and empty arguments as {}; checks them against the schema', () => {
    const parsed = call('read_file', { path: 'a.txt' });
    const [p, empty, noPath] = plan(parsed, call('list_dir', '  '), call('read_file', ''));
    expect(p).toMatchObject({ kind: 'run', args: { path: 'a.txt' } });
    expect(empty).toMatchObject({ kind: 'run', name: 'list_dir', args: {} });
    expect(content(noPath)).toMatch(/^Error: invalid arguments for read_file:\n[\s\S]*path[\s\S]*\nFix the arguments and call it again\.$/);
  });

  it('runs the same call once per reply: a later copy (keys in any order, or a repaired name) points at the first', () => {
    const first = json('read_file', { path: 'a.txt', limit: 10 });
    const [a, copy, repaired, other] = plan(
      first,
      json('read_file', { limit: 10, path: 'a.txt' }),
      json('Read_File', { path: 'a.txt', limit: 10 }),
      json('read_file', { path: 'a.txt', limit: 20 }),
    );
    expect(a?.kind).toBe('run');
    expect(copy).toMatchObject({ kind: 'duplicate', of: first.id });
    expect(repaired).toMatchObject({ kind: 'duplicate', of: first.id });
    expect(other?.kind).toBe('run');
  });

  it("compares a catalog tool's arguments by content too (its schema keeps the keys in the order sent)", () => {
    const lookup = (name: string) =>
      name === 'crm_lookup'
        ? catalogToolSpec({ name, description: 'Looks up a customer.', parameters: { type: 'object' }, readOnly: true, toolset: 'crm', hash: 'h1' })
        : toolSpec(name);
    const first = json('crm_lookup', { name: 'Ada', filter: { country: 'UK', active: true } });
    const [a, copy] = planToolCalls([first, json('crm_lookup', { filter: { active: true, country: 'UK' }, name: 'Ada' })], ['crm_lookup'], lookup);
    expect(a?.kind).toBe('run');
    expect(copy).toMatchObject({ kind: 'duplicate', of: first.id });
  });

  it('does not count an invalid call as the first of a duplicate', () => {
    const [bad, good] = plan(json('read_file', { path: 7 }), json('read_file', { path: 7 }));
    expect([bad?.kind, good?.kind]).toEqual(['invalid', 'invalid']);
  });
});

describe('batchCalls', () => {
  it('runs reads next to each other together, and every state-changing call alone, in order', () => {
    const runs = plan(
      json('read_file', { path: 'a' }),
      json('list_dir', {}),
      json('write_file', { path: 'b', content: 'x' }),
      json('read_file', { path: 'b' }),
      json('terminal', { command: 'make' }),
      json('terminal', { command: 'make test' }),
      json('read_file', { path: 'c' }),
    ).filter((p) => p.kind === 'run');
    const shape = batchCalls(runs).map((b) => b.map((r) => `${r.name} ${Object.values(r.args).join(' ')}`.trim()));
    expect(shape).toEqual([
      ['read_file a', 'list_dir'],
      ['write_file b x'],
      ['read_file b'],
      ['terminal make'],
      ['terminal make test'],
      ['read_file c'],
    ]);
  });
});
