// firstWait (src/http-api/waiting.ts): a request that is not streamed is told at once that its turn waits for a
// person, even when the conversation's events could not be followed at first. Here the first looks fail for real
// (the conversation does not exist yet); the wait must still be said once it does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TurnStream } from '../src/http-api/turn-stream';
import { firstWait } from '../src/http-api/waiting';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('firstWait', () => {
  it('looks again after events that could not be followed, and says the wait once there is one', async () => {
    const id = `first-wait-${Date.now().toString(36)}`;
    const logged: string[] = [];
    const stop = new AbortController();
    const wait = firstWait(h.hermes.get(id), 0, new TurnStream(), stop.signal, (line) => logged.push(line));
    await waitFor('a failed look logged', async () => (logged.length ? true : undefined), 15_000);
    h.mock.push(toolCall('terminal', { command: `rm -rf ${h.workspace}/nothing-here` }, 'rm1'), answer('left it'));
    try {
      await h.run(async () => {
        const handle = await h.hermes.start({ id, prompt: 'clean up' });
        const said = await Promise.race([wait, new Promise<undefined>((r) => setTimeout(r, 30_000))]);
        expect(said, `the wait was not said; logged: ${logged.join(' | ')}`).toMatchObject({ for: 'approval', callId: 'rm1' });
        await handle.approve('rm1', 'deny');
        expect((await handle.result()).answer).toBe('left it');
      });
    } finally {
      stop.abort();
    }
    // Said once for the streak of failed looks, not once a second.
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(new RegExp(`^events of ${id}: .*; looking again$`));
  });
});
