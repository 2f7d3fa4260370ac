// The todo tool's list: merging, replacing, and the cap that keeps one reply of many calls cheap (it runs in the
// workflow task and answers with the whole list).
import { describe, expect, it } from 'vitest';
import { todoSpec } from '../../tools/todo/spec';
import { MAX_TODO_ITEMS, TodoList } from './todo';

const items = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: String(from + i), content: `task ${from + i}` }));

describe('TodoList', () => {
  it('merges by id and replaces without merge', () => {
    const list = new TodoList(undefined);
    expect(list.update(items(1, 2), false)).toEqual({ ok: true, text: 'Todo (0/2 done):\n[ ] 1. task 1\n[ ] 2. task 2' });
    expect(list.update([{ id: '2', status: 'completed' }, ...items(3, 1)], true).text).toBe(
      'Todo (1/3 done):\n[ ] 1. task 1\n[x] 2. task 2\n[ ] 3. task 3',
    );
    expect(list.update(items(7, 1), false).text).toBe('Todo (0/1 done):\n[ ] 7. task 7');
  });

  it(`holds at most ${MAX_TODO_ITEMS} items: a merge past that is refused and the list kept`, () => {
    const list = new TodoList(undefined);
    for (let k = 0; k < MAX_TODO_ITEMS / 50; k++) expect(list.update(items(k * 50, 50), true).ok).toBe(true);
    expect(list.items).toHaveLength(MAX_TODO_ITEMS);
    const refused = list.update(items(1000, 1), true);
    expect(refused).toEqual({ ok: false, text: expect.stringContaining(`more than ${MAX_TODO_ITEMS}`) as string });
    expect(list.items).toHaveLength(MAX_TODO_ITEMS);
    // Replacing with what is still open is the way on.
    expect(list.update(items(1000, 3), false).ok).toBe(true);
    expect(list.items).toHaveLength(3);
  });

  it('answers 400 merging calls of 50 new items each (one hostile reply) with a list that stays at the cap', () => {
    const list = new TodoList(undefined);
    const answers = Array.from({ length: 400 }, (_, k) => list.update(items(k * 50, 50), true));
    expect(answers.filter((a) => a.ok)).toHaveLength(MAX_TODO_ITEMS / 50);
    expect(list.items).toHaveLength(MAX_TODO_ITEMS);
    expect(Math.max(...answers.map((a) => a.text.length))).toBeLessThan(MAX_TODO_ITEMS * 600);
  });

  it('refuses an item over 500 characters or an id over 64 in the tool arguments', () => {
    const schema = todoSpec.schema;
    expect(schema.safeParse({ todos: [{ id: '1', content: 'x'.repeat(500) }] }).success).toBe(true);
    expect(schema.safeParse({ todos: [{ id: '1', content: 'x'.repeat(501) }] }).success).toBe(false);
    expect(schema.safeParse({ todos: [{ id: 'i'.repeat(65), content: 'x' }] }).success).toBe(false);
  });
});
