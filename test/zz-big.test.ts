import { afterAll, beforeAll, it } from 'vitest';
import { answer, createHarness, type Harness } from './helpers/harness';
let h: Harness;
beforeAll(async () => { h = await createHarness(); });
afterAll(async () => { await h?.close(); });
it('big calls', async () => {
  const n = Number(process.env.N ?? 5);
  h.mock.push({ toolCalls: Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: 'write_file', arguments: { path: `f${i}.txt`, content: String(i).repeat(500_000) } })) }, answer('done'));
  await h.run(async () => {
    const handle = await h.hermes.start({ prompt: 'write them' });
    const r = await Promise.race([handle.result(), new Promise((res) => setTimeout(() => res('slow'), 60_000))]);
    console.log('RESULT', JSON.stringify(r).slice(0, 300));
    const d = await handle.workflow.describe();
    console.log('HIST', d.historyLength, d.historySize, 'requests', h.mock.requests.length);
    const hist = await handle.workflow.fetchHistory();
    for (const e of hist.events ?? []) { const m = e.workflowTaskFailedEventAttributes?.failure?.message ?? e.activityTaskFailedEventAttributes?.failure?.message; if (m) console.log('EV', e.eventType, m.slice(0, 300)); }
    console.log('PENDING', JSON.stringify(d.raw.pendingActivities?.map((a) => [a.activityType?.name, a.attempt, a.lastFailure?.message?.slice(0,300)])));
  });
}, 200_000);
