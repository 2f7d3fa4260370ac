// The transcript and the loop guards are plain classes: their rules are checked here without a server.
import { describe, expect, it } from 'vitest';
import { extendDigest } from '../src/shared/digest';
import { LoopGuards } from '../src/workflows/state/loop-guards';
import { Transcript } from '../src/workflows/state/transcript';
import type { StepResult } from '../src/workflows/loop/step-result';

describe('Transcript', () => {
  it('appends without a new version; a rewrite bumps it and keeps the old context answerable', () => {
    const t = new Transcript(undefined, 'do it');
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user']);
    t.setSystemPrompt('You are Hermes.');
    const d1 = t.digest();
    t.append({ role: 'assistant', content: 'ok' });
    expect(t.version).toBe(0);
    // Extended incrementally, the digest is the digest of the whole context.
    expect(t.digest()).toBe(extendDigest('', [...t.messages]));
    expect(t.digest()).not.toBe(d1);
    const before = [...t.messages];
    t.rewrite([before[0]!, { role: 'user', content: 'summary' }], { skip: 1 });
    expect(t.version).toBe(2);
    expect(t.slice(0, 0, 10)).toEqual({ version: 0, messages: before, archived: true });
    expect(t.slice(2, 0, 10).messages).toHaveLength(2);
    expect(t.digest()).toBe(extendDigest('', [...t.messages]));
    // An unknown version answers with the current one and no messages (the activity then asks again).
    expect(t.slice(1, 0, 10)).toEqual({ version: 2, messages: [] });
  });

  it('bounds the turn: the last assistant text of this turn only, and a rewrite can move the turn start', () => {
    const t = new Transcript(undefined, 'first');
    t.append({ role: 'assistant', content: 'first answer' });
    t.beginTurn('second');
    expect(t.turnStart).toBe(3);
    expect(t.lastAssistantText()).toBe('');
    t.append({ role: 'assistant', content: 'working' });
    expect(t.lastAssistantText()).toBe('working');
    t.rewrite([...t.messages.slice(0, 1), ...t.messages.slice(3)], { turnStart: 1 });
    expect(t.turnStart).toBe(1);
    expect(t.carry()).toMatchObject({ contextVersion: 1, turnStartMessage: 1 });
  });

  it('prunes old tool outputs under a new version only when there were any', () => {
    const t = new Transcript(undefined, 'x');
    expect(t.pruneOldToolOutputs()).toBe(false);
    expect(t.version).toBe(0);
    t.append({ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{}' } }] });
    t.append({ role: 'tool', tool_call_id: 'a', content: 'x'.repeat(5000) });
    for (let i = 0; i < 6; i++) t.append({ role: 'user', content: `later ${i}` });
    expect(t.pruneOldToolOutputs()).toBe(true);
    expect(t.version).toBe(1);
    expect(t.messages[3]!.content).toMatch(/^\[pruned: 5000 characters of earlier read_file output\]$/);
  });
});

describe('LoopGuards', () => {
  const tools = (valid: boolean[], ran: Array<[string, string]> = []): StepResult => ({
    kind: 'tools',
    valid,
    ran: ran.map(([name, content]) => ({ name, argsKey: '{}', content, label: name })),
    lastName: 'x',
  });

  it('counts invalid calls in a row across unreadable replies and tool rounds; a valid call resets the streak', () => {
    const g = new LoopGuards(undefined);
    g.count({ kind: 'unreadable' });
    g.count(tools([false, false]));
    expect(g.invalidStreak).toBe(3);
    g.count(tools([false, true]));
    expect(g.invalidStreak).toBe(0);
    g.count(tools([true, false]));
    expect(g.invalidStreak).toBe(1);
  });

  it('counts empty replies in a row and warns once before it stops a repeated call', () => {
    const g = new LoopGuards(undefined);
    g.count({ kind: 'empty' });
    g.count({ kind: 'empty' });
    expect(g.emptyStreak).toBe(2);
    g.count({ kind: 'unreadable' });
    expect(g.emptyStreak).toBe(0);
    const same = tools([true], [['list_dir', 'a b c']]);
    expect(g.count(same)).toEqual({});
    expect(g.count(same)).toEqual({});
    expect(g.count(same)).toEqual({ warnLooping: 'list_dir' });
    expect(g.count(same)).toEqual({ stopRepeating: 'list_dir' });
    // A new chat turn starts with clean guards, and they carry across continue-as-new.
    g.newTurn();
    expect(g.carry()).toEqual({ emptyStreak: 0, invalidStreak: 0, repeat: { recent: [], warned: false } });
  });
});
