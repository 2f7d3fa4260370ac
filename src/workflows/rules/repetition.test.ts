// When a model is stuck: the same call with the same result within the last few tool steps is warned about
// once, and stopped the next time.
import { describe, expect, it } from 'vitest';
import type { RepeatState } from '../../shared/wire';
import { fingerprint, recordStep, REPEAT_WINDOW } from './repetition';

const fresh = (): RepeatState => ({ recent: [], warned: false });
const run = (state: RepeatState, steps: string[]) => steps.map((s) => recordStep(state, s));

describe('recordStep', () => {
  it('warns at the third same step, then stops at the next one', () => {
    expect(run(fresh(), ['a', 'a', 'a', 'a'])).toEqual(['ok', 'ok', 'warn', 'stop']);
  });

  it('counts repeats that are not in a row, within the window', () => {
    expect(run(fresh(), ['a', 'b', 'a', 'c', 'a'])).toEqual(['ok', 'ok', 'ok', 'ok', 'warn']);
  });

  it(`forgets steps older than the last ${REPEAT_WINDOW}`, () => {
    const s = fresh();
    // The first "a" is six steps back when the third comes: only two are in the window.
    expect(run(s, ['a', 'a', 'b', 'c', 'd', 'a']).at(-1)).toBe('ok');
    expect(s.recent).toEqual(['a', 'b', 'c', 'd', 'a']);
    // The next "a" pushes the older one out (two again); one more makes three.
    expect(run(s, ['a', 'a'])).toEqual(['ok', 'warn']);
  });

  it('warns once per state: a different call repeating after the warning is stopped at once', () => {
    const s = fresh();
    expect(run(s, ['a', 'a', 'a'])).toEqual(['ok', 'ok', 'warn']);
    expect(run(s, ['b', 'b'])).toEqual(['ok', 'ok']);
    expect(recordStep(s, 'b')).toBe('stop');
  });
});

describe('fingerprint', () => {
  it('is stable, short and tells different results apart', () => {
    expect(fingerprint('exit code: 0')).toBe(fingerprint('exit code: 0'));
    expect(fingerprint('exit code: 0')).toMatch(/^[0-9a-f]{8}$/);
    expect(fingerprint('')).toBe('811c9dc5');
    expect(fingerprint('exit code: 0')).not.toBe(fingerprint('exit code: 1'));
  });
});
