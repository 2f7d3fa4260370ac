// Fallback chains: a profile's `fallbacks` (the worker's config) are tried in order when the model stays
// unavailable after its retries, for the rest of the turn; the next turn tries the primary again; auth
// failures never fall through.
import { afterEach, describe, expect, it } from 'vitest';
import { defineProfile, type ProfileSet } from '../src/llm/profiles';
import { answer, createHarness, type Harness } from './helpers/harness';
import type { Reply } from './helpers/mock-model';
import { stateWhen } from './helpers/wait';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const chainProfiles = (baseURL: string): ProfileSet => ({
  defaultName: 'primary',
  profiles: {
    primary: defineProfile('primary', { baseURL, model: 'primary-model', fallbacks: ['fb1', 'fb2'] }),
    fb1: defineProfile('fb1', { baseURL, model: 'fb1-model' }),
    fb2: defineProfile('fb2', { baseURL, model: 'fb2-model' }),
  },
});

const unavailable: Reply = { status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } };

/** Turn 1: primary and fb1 answer 503 on both tries, fb2 answers; turn 2: the primary answers. */
const chainScript: Reply[] = [unavailable, unavailable, unavailable, unavailable, answer('from fb2'), answer('from the primary')];

describe('fallback chains', () => {
  it('continues on the next profile of the chain for the turn, and tries the primary first at the next turn', async () => {
    h = await createHarness(chainScript, chainProfiles);
    const { first, second, during, after, id } = await h.run(async () => {
      const handle = await h.hermes.start({ mode: 'chat', prompt: 'first', modelMaxAttempts: 2 });
      const during = await stateWhen(handle, (s) => s.status === 'idle');
      const second = await handle.send('second');
      const after = await handle.state({ stepsAfter: 0 });
      await handle.end();
      const result = await handle.result();
      return { first: during.steps, second, during, after, id: handle.id, result };
    });
    expect(h.mock.requests.map((r) => r.body.model)).toEqual([
      'primary-model',
      'primary-model',
      'fb1-model',
      'fb1-model',
      'fb2-model',
      'primary-model',
    ]);
    expect(second).toMatchObject({ status: 'completed', answer: 'from the primary' });
    // The switch is in the state (profile, step records) while the turn's fallback holds…
    expect(during.profile).toBe('fb2');
    const notes = after.steps.filter((s) => s.kind === 'note').map((s) => s.summary);
    expect(notes).toEqual([
      'ModelUnavailable on profile default: continuing on fallback profile fb1 for this turn',
      'ModelUnavailable on profile fb1: continuing on fallback profile fb2 for this turn',
      'new turn: back to profile default',
    ]);
    expect(first.filter((s) => s.kind === 'model').map((s) => s.name)).toEqual(['fb2-model']);
    // …and in the history: the chain was asked once per fallthrough (a local activity marker), not before.
    const events = (await h.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    // (Other local activities run at the start: core's marker data names each one's type.)
    const typeOf = (e: (typeof events)[number]) => {
      const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
      return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type : undefined;
    };
    const markers = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity' && typeOf(e) === 'modelFallbacks');
    expect(markers).toHaveLength(2);
    expect(after.profile).toBeUndefined();
  });

  it('does not fall through on 401', async () => {
    h = await createHarness([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }], chainProfiles);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go', modelMaxAttempts: 2 })).result());
    expect(result).toMatchObject({ status: 'failed', reason: 'ModelAuth' });
    expect(h.mock.requests.map((r) => r.body.model)).toEqual(['primary-model']);
  });

  it('fails when the last profile of the chain stays unavailable too', async () => {
    h = await createHarness(
      Array.from({ length: 3 }, () => unavailable),
      chainProfiles,
    );
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go', modelMaxAttempts: 1 })).result());
    expect(result).toMatchObject({ status: 'failed', reason: 'ModelUnavailable' });
    expect(h.mock.requests.map((r) => r.body.model)).toEqual(['primary-model', 'fb1-model', 'fb2-model']);
  });
});
