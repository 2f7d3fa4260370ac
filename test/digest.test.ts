import { describe, expect, it } from 'vitest';
import { canonicalJson, extendDigest } from '../src/shared/digest';
import type { ChatMessage } from '../src/shared/wire';

const msgs: ChatMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'hi' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c', content: 'out' },
];

describe('context digest', () => {
  it('chains: extending step by step equals hashing the whole prefix', () => {
    const whole = extendDigest('', msgs);
    let step = '';
    for (const m of msgs) step = extendDigest(step, [m]);
    expect(step).toBe(whole);
    expect(extendDigest(extendDigest('', msgs.slice(0, 2)), msgs.slice(2))).toBe(whole);
    expect(whole).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes with any content, order or message boundary', () => {
    const whole = extendDigest('', msgs);
    expect(extendDigest('', [...msgs.slice(0, 3), { role: 'tool', tool_call_id: 'c', content: 'out!' }])).not.toBe(whole);
    expect(extendDigest('', [msgs[1]!, msgs[0]!])).not.toBe(extendDigest('', [msgs[0]!, msgs[1]!]));
    expect(extendDigest('', [{ role: 'user', content: 'ab' }])).not.toBe(
      extendDigest('', [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ]),
    );
  });

  it('ignores key order and undefined members, as JSON round trips do', () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [1, 'x'] } })).toBe('{"a":{"c":[1,"x"]},"b":1}');
    expect(extendDigest('', [{ content: 'hi', role: 'user' } as ChatMessage])).toBe(extendDigest('', [msgs[1]!]));
  });
});
