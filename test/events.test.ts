// Live events (src/shared/events.ts): the model's reply word by word while the endpoint streams, a retried
// attempt marked, step events in order across continue-as-new — and none of it in the history.
import { getEventListeners } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../src/shared/events';
import { createHarness, toolCall, type Harness } from './helpers/harness';

const ANSWER = 'The notes say the build is green and the release goes out on Friday at noon.';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  writeFileSync(path.join(h.workspace, 'notes.txt'), 'build: green\nrelease: Friday noon\n');
});
afterAll(async () => h?.close());

async function collect(events: AsyncIterable<ConversationEvent>): Promise<ConversationEvent[]> {
  const out: ConversationEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

/** The text a subscriber ends with for model step `step`: its deltas, started over at each restart or rewrite. */
function textOf(events: ConversationEvent[], step: number): string {
  let text = '';
  for (const ev of events) {
    if (ev.step !== step) continue;
    if (ev.type === 'attempt.restarted') text = '';
    if (ev.type === 'text.replaced' && ev.channel === 'answer') text = ev.text;
    if (ev.type === 'delta' && ev.channel === 'answer') text += ev.text;
  }
  return text;
}

async function historyEventTypes(workflowId: string): Promise<string[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((e) => String(e.eventType));
}

describe('live events', () => {
  it('streams the answer word by word, marks the retried attempt, and ends with exactly the answer', async () => {
    h.mock.push(
      toolCall('read_file', { path: 'notes.txt' }),
      // Attempt 1 of model step 2 dies after four words; attempt 2 streams the whole answer, a word per 200 ms.
      { content: ANSWER, wordDelayMs: 200, failAfterWords: 4 },
      { content: ANSWER, wordDelayMs: 300 },
    );
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'What do the notes say?', workspace: h.workspace });
      const follow = new AbortController();
      const events = await collect(handle.events({ signal: follow.signal }));
      // Each look's listener on the caller's signal is gone again (the SDK's withAbortSignal leaves one per call:
      // after ten, Node printed a leak warning into a terminal's streamed answer).
      expect(getEventListeners(follow.signal, 'abort')).toHaveLength(0);
      const result = await handle.result();
      expect(result.status).toBe('completed');
      expect(result.answer).toBe(ANSWER);

      const finished2 = events.findIndex((e) => e.type === 'model.finished' && e.step === 2);
      const firstDelta2 = events.findIndex((e) => e.type === 'delta' && e.step === 2 && e.channel === 'answer');
      expect(firstDelta2).toBeGreaterThanOrEqual(0);
      // Words arrived while the call ran: several deltas before its end, not one block at the end.
      expect(firstDelta2).toBeLessThan(finished2);
      const before = events.slice(0, finished2).filter((e) => e.type === 'delta' && e.step === 2);
      expect(before.length).toBeGreaterThan(3);

      const restart = events.find((e) => e.type === 'attempt.restarted');
      expect(restart).toMatchObject({ step: 2, attempt: 2, conversationId: handle.id });
      expect(events.indexOf(restart!)).toBeLessThan(finished2);
      expect(textOf(events, 2)).toBe(ANSWER);

      // Step events: offsets strictly increasing from 0, each once; the tool call between its model steps.
      const steps = events.filter((e) => !['delta', 'attempt.restarted', 'text.replaced', 'tool_call.forming', 'gap'].includes(e.type));
      expect(steps.map((e) => e.offset)).toEqual(steps.map((_, i) => i));
      expect(steps.map((e) => e.type)).toEqual([
        'turn.started',
        'model.started',
        'model.finished',
        'tool.started',
        'tool.finished',
        'model.started',
        'model.finished',
        'answer',
        'status',
      ]);
      expect(steps.find((e) => e.type === 'tool.finished')).toMatchObject({ name: 'read_file', outcome: 'ok' });
      expect(steps.at(-1)).toMatchObject({ type: 'status', status: 'completed' });

      // The stream was asked for, and nothing of it is in the history: no signals, no updates.
      expect(h.mock.requests.every((r) => r.body.stream === true && r.body.stream_options?.include_usage === true)).toBe(true);
      const types = await historyEventTypes(handle.id);
      expect(types.filter((t) => /SIGNALED|UPDATE/.test(t))).toEqual([]);
      h.mock.assertDone();
    });
  });

  it('a server that answers a stream request with plain JSON: the answer still arrives as deltas', async () => {
    h.mock.push({ content: 'plain reply, no stream', ignoreStream: true });
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'hi', tools: [] });
      const events = await collect(handle.events());
      expect(textOf(events, 1)).toBe('plain reply, no stream');
      expect((await handle.result()).answer).toBe('plain reply, no stream');
    });
  });

  it('follows continue-as-new: offsets go on counting, the run id changes, the answer arrives', async () => {
    for (let i = 0; i < 8; i++) {
      writeFileSync(path.join(h.workspace, `page${i}.txt`), `page ${i}\n`);
      h.mock.push(toolCall('read_file', { path: `page${i}.txt` }, `c${i}`));
    }
    h.mock.push({ content: 'done reading' });
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'read it many times', workspace: h.workspace, maxHistoryEvents: 40 });
      const events = await collect(handle.events());
      const steps = events.filter(
        (e) => typeof e.offset === 'number' && !['delta', 'attempt.restarted', 'text.replaced', 'tool_call.forming', 'gap'].includes(e.type),
      );
      expect(steps.map((e) => e.offset)).toEqual(steps.map((_, i) => i));
      expect(steps.some((e) => e.type === 'continued')).toBe(true);
      expect(new Set(steps.map((e) => e.runId)).size).toBeGreaterThan(1);
      expect(steps.at(-2)).toMatchObject({ type: 'answer', text: 'done reading' });
      expect((await handle.result()).runs).toBeGreaterThan(1);
    });
  });
});
