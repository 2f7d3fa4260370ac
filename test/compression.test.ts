// Context compression (src/workflows/loop/compress.ts) on a real dev server with the scripted model: what the model
// receives before and after a compression, the summarising call, overflow recovery, and giving up when it stops
// helping.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchRuns, modelViewAt, stepRows } from '../src/inspect/step-context';
import { defineProfile } from '../src/llm/profiles';
import { answer, createHarness, type Harness } from './helpers/harness';
import type { RecordedRequest, Reply, SuccessReply } from './helpers/mock-model';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ id: string }>; tool_call_id?: string };

const isSummariser = (r: RecordedRequest) => String(r.messages[0]?.content).startsWith('You compress');
/** Prompt tokens as a real endpoint would count them, roughly: a token per 4 bytes of the request. */
const usageOf = (r: RecordedRequest) => ({ prompt_tokens: Math.ceil(r.raw.length / 4), completion_tokens: 5 });

/**
 * A script that answers the conversation's steps and the summarising calls from two queues, whatever their
 * order: every reply reports prompt tokens from the request's size.
 */
function agent(steps: Reply[], summaries: Reply[]): Reply[] {
  const q = { steps: [...steps], summaries: [...summaries] };
  const reply: Reply = async (req) => {
    const next = (isSummariser(req) ? q.summaries : q.steps).shift();
    if (!next) throw new Error(`no ${isSummariser(req) ? 'summary' : 'step'} left for request #${req.n}`);
    const r = typeof next === 'function' ? await next(req) : next;
    return 'status' in r ? r : { usage: usageOf(req), ...(r as SuccessReply) };
  };
  return Array.from({ length: steps.length + summaries.length }, () => reply);
}

/** A step that thinks aloud (text a tool-output cut cannot shrink) and runs a small command. */
const thinkingStep = (n: number, words = 150): Reply => ({
  content: `Step ${n}: ${'reasoning '.repeat(words)}`,
  toolCalls: [{ id: `s${n}`, name: 'terminal', arguments: { command: `echo step ${n}` } }],
});

/** Every tool message follows the assistant message that called it, and every call has its result. */
function pairsValid(messages: Msg[]): boolean {
  let open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool') {
      if (!open.delete(m.tool_call_id!)) return false;
      continue;
    }
    if (open.size) return false;
    open = new Set((m.tool_calls ?? []).map((t) => t.id));
  }
  return open.size === 0;
}

const summaries = (messages: Msg[]) => messages.filter((m) => String(m.content).startsWith('[Context summary:'));

function profiles(contextWindow: number) {
  return (baseURL: string) => ({
    defaultName: 'default',
    // Small windows to make compression come soon, on a model that is not treated as a small one (core tools only).
    profiles: { default: defineProfile('default', { baseURL, model: 'mock-model', contextWindow, small: false }) },
  });
}

describe('context compression', () => {
  it('summarises the middle before the window fills, keeps the head and the tail verbatim, and updates the summary later', async () => {
    const todo: Reply = {
      content: 'Planning.',
      toolCalls: [
        {
          id: 'plan',
          name: 'todo',
          arguments: {
            todos: [
              { id: '1', content: 'read the code', status: 'completed' },
              { id: '2', content: 'write the tests', status: 'pending' },
            ],
          },
        },
      ],
    };
    const steps = [todo, ...Array.from({ length: 18 }, (_, i) => thinkingStep(i + 1)), answer('built')];
    const sums = [
      '## Goal\n- build the thing\n## Completed actions\n- FIRST-SUMMARY',
      '## Goal\n- build the thing\n## Completed actions\n- SECOND-SUMMARY',
    ];
    h = await createHarness(
      agent(
        steps,
        sums.map((content) => ({ content })),
      ),
      profiles(10_000),
    );
    const { id, result, views, rows } = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'build the thing', tools: ['terminal', 'todo'] });
      const result = await handle.result();
      const reqs = h.mock.requests;
      const at = reqs.findIndex(isSummariser);
      // What `hermes inspect` shows for the step before the compression and the one after it.
      const views = [await modelViewAt(h.client, handle.id, at), await modelViewAt(h.client, handle.id, at + 2)];
      return { id: handle.id, result, views, rows: stepRows(await fetchRuns(h.client, handle.id)) };
    });
    h.mock.assertDone();
    expect(result.status).toBe('completed');
    const reqs = h.mock.requests;
    const summarisers = reqs.filter(isSummariser);
    expect(summarisers).toHaveLength(2);

    const k = reqs.indexOf(summarisers[0]!);
    const [before, after] = [reqs[k - 1]!, reqs[k + 1]!];
    // Smaller, with the system prompt and the first request as they were, then one summary message.
    expect(after.raw.length).toBeLessThan(before.raw.length * 0.75);
    expect(after.messages.slice(0, 2)).toEqual(before.messages.slice(0, 2));
    expect(after.messages[1]).toEqual({ role: 'user', content: 'build the thing' });
    expect(after.messages[2].role).toBe('user');
    expect(after.messages[2].content).toContain('FIRST-SUMMARY');
    // The pending todo item survives: restated from the workflow's own list.
    expect(after.messages[2].content).toContain('[ ] 2. write the tests');
    // The recent tail is verbatim: the messages before the summary call's reply, then that step's reply and result.
    const tail = after.messages.slice(3);
    expect(tail.length).toBeGreaterThanOrEqual(8);
    expect(tail.slice(0, -2)).toEqual(before.messages.slice(before.messages.length - (tail.length - 2)));
    expect(tail.at(-2).tool_calls[0].id).toBe(`s${k - 1}`);
    // The summarising call: no tools, the middle as text, the first request for reference.
    expect(summarisers[0]!.body.tools).toBeUndefined();
    expect(summarisers[0]!.messages[1].content).toContain('<request>\nbuild the thing\n</request>');
    expect(summarisers[0]!.messages[1].content).toMatch(/\[assistant\]\nStep 1: reasoning/);
    expect(summarisers[0]!.messages[1].content).not.toContain('<previous-summary>');

    // The second compression updates the first summary instead of summarising it as a message.
    expect(summarisers[1]!.messages[1].content).toContain(
      '<previous-summary>\n## Goal\n- build the thing\n## Completed actions\n- FIRST-SUMMARY\n</previous-summary>',
    );
    const later = reqs[reqs.indexOf(summarisers[1]!) + 1]!;
    expect(summaries(later.messages)).toHaveLength(1);
    expect(later.messages[2].content).toContain('SECOND-SUMMARY');
    expect(later.messages[2].content).not.toContain('FIRST-SUMMARY');
    expect(later.messages[2].content).toContain('(compression 2)');

    // Every request the model received keeps tool calls and results paired.
    for (const r of reqs) expect(pairsValid(r.messages), `request #${r.n}`).toBe(true);
    // The summaries' tokens count like every call's.
    const prompt = reqs.reduce((n, r) => n + usageOf(r).prompt_tokens, 0);
    expect(result.usage.promptTokens).toBe(prompt);
    expect(result.modelCalls).toBe(reqs.length);

    // inspect: the step before the compression (a version since rewritten) and the one after, exactly.
    expect(views[0]!.messages).toEqual(before.messages);
    expect(views[0]!.archived).toBe(true);
    expect(views[1]!.messages).toEqual(after.messages);
    // History stays linear: every model input after the first (which brings the opening context, once) is a
    // reference of the same size, the summary enters once.
    const models = rows.filter((r) => r.kind === 'model');
    const inputs = models.map((r) => r.bytesIn);
    expect(inputs[0]).toBeGreaterThan(1000);
    expect(Math.max(...inputs.slice(1))).toBeLessThan(500);
    const summaryRows = models.filter((r) => r.name.includes('context summary'));
    expect(summaryRows).toHaveLength(2);
    const steady = models.filter((r) => !r.name.includes('context summary')).map((r) => r.bytesIn);
    expect(Math.max(...steady.slice(1)) - Math.min(...steady.slice(1))).toBeLessThan(20);
    console.log(
      `compression ${id}: ${reqs.length} requests; request before ${before.raw.length} B, after ${after.raw.length} B; ` +
        `summarising call ${summaryRows.map((r) => `${r.bytesIn} B in + ${r.bytesOut} B out`).join(', ')}; model step input ${Math.min(...steady)}–${Math.max(...steady)} B`,
    );
  });

  it('a long turn of tool steps stays within the window: when cutting outputs leaves no room, the middle is summarised', async () => {
    // 80 steps, each a fresh ~1 KB page: cutting old outputs to one line saves less and less as the stubs pile up.
    const pages = 80;
    const read = (n: number): Reply => ({
      toolCalls: [{ id: `p${n}`, name: 'read_file', arguments: { path: 'pages.txt', offset: n * 20 + 1, limit: 20 } }],
    });
    const steps = [...Array.from({ length: pages }, (_, i) => read(i)), answer('read them')];
    h = await createHarness(
      agent(
        steps,
        Array.from({ length: 40 }, (_, i) => ({ content: `## Goal\n- read the pages\n## Completed actions\n- S${i}` })),
      ),
      profiles(10_000),
    );
    writeFileSync(path.join(h.workspace, 'pages.txt'), Array.from({ length: pages * 20 }, (_, i) => `line ${i + 1} `.padEnd(48, 'x')).join('\n'));
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'read the pages', tools: ['read_file'] })).result());
    expect(result.status, JSON.stringify(result)).toBe('completed');
    const reqs = h.mock.requests.filter((r) => !isSummariser(r));
    expect(h.mock.requests.filter(isSummariser).length).toBeGreaterThan(0);
    // The last steps' requests stay near the threshold (the window is 10,000 tokens,
    // compression at half of it: ~20 KB of request).
    const late = Math.max(...reqs.slice(-10).map((r) => r.raw.length));
    expect(late).toBeLessThan(10_000 * 0.5 * 4 * 1.2);
    console.log(`long turn: ${reqs.length} steps, ${h.mock.requests.length - reqs.length} summaries, last requests ≤ ${late} B`);
  });

  it('keeps the request of the current chat turn verbatim after the summary', async () => {
    const steps = [answer('hi'), ...Array.from({ length: 14 }, (_, i) => thinkingStep(i + 1)), answer('built')];
    h = await createHarness(agent(steps, [{ content: '## Goal\n- CHAT-SUMMARY' }, { content: '## Goal\n- CHAT-SUMMARY 2' }]), profiles(10_000));
    const turn = await h.run(async () => {
      const handle = await h.hermes.start({ mode: 'chat', prompt: 'hello', tools: ['terminal'] });
      const turn = await handle.send('now build the thing');
      await handle.end();
      return turn;
    });
    expect(turn).toMatchObject({ status: 'completed', answer: 'built' });
    const reqs = h.mock.requests;
    const k = reqs.findIndex(isSummariser);
    expect(k).toBeGreaterThan(0);
    const after = reqs[k + 1]!.messages;
    expect(after.slice(0, 2).map((m: Msg) => m.content)).toEqual([reqs[0]!.messages[0].content, 'hello']);
    expect(after[2].content).toContain('CHAT-SUMMARY');
    expect(after[3]).toEqual({ role: 'user', content: 'now build the thing' });
    // It was in the summarised middle, not in the tail: the tail starts at a later step.
    expect(after[4].content).toMatch(/^Step ([3-9]|\d\d):/);
    expect(pairsValid(after)).toBe(true);
  });

  it('compresses and succeeds after a ContextOverflow', async () => {
    const big = (n: number): Reply => ({ toolCalls: [{ id: `b${n}`, name: 'terminal', arguments: { command: `seq 1 1000 # ${n}` } }] });
    const overflow: Reply = { status: 400, body: { error: { message: "This model's maximum context length is 4096 tokens" } } };
    const steps = [...Array.from({ length: 10 }, (_, i) => big(i + 1)), overflow, answer('fits now')];
    // A window large enough that nothing is compressed before the endpoint says otherwise.
    h = await createHarness(agent(steps, []), profiles(1_000_000));
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'count', tools: ['terminal'] })).result());
    h.mock.assertDone();
    expect(result.status).toBe('completed');
    const [failed, retried] = h.mock.requests.slice(-2);
    expect(retried!.raw.length).toBeLessThan(failed!.raw.length * 0.6);
    const out = (m: Msg[], id: string) => m.find((x) => x.tool_call_id === id)?.content;
    // One line each that says what happened; identical outputs say where the kept copy is.
    expect(out(retried!.messages, 'b1')).toBe('[terminal] seq 1 1000 # 1 → exit 0, 1000 lines (same output as call b10 later)');
    // The recent tail keeps its outputs.
    expect(out(retried!.messages, 'b8')).toBe(out(failed!.messages, 'b8'));
    expect(out(retried!.messages, 'b8')).toMatch(/^1\n2\n/);
    expect(pairsValid(retried!.messages)).toBe(true);
  });

  it('stops compressing for the turn after two compressions that saved less than 10 %', async () => {
    // Small steps, then steps whose long text lands in the protected tail: each compression can only summarise a
    // small step or two from the middle, which saves nearly nothing.
    const small = Array.from({ length: 4 }, (_, i) => thinkingStep(i + 1, 1));
    const large = Array.from({ length: 4 }, (_, i) => thinkingStep(i + 5, 2_000));
    const steps = [...small, ...large, answer('done anyway')];
    h = await createHarness(agent(steps, [{ content: '## Goal\n- one' }, { content: '## Goal\n- two' }]), profiles(8_000));
    const { result, notes } = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'go', tools: ['terminal'] });
      const result = await handle.result();
      return { result, notes: (await handle.state({ stepsAfter: 0 })).steps.filter((s) => s.kind === 'note').map((s) => s.summary) };
    });
    h.mock.assertDone();
    expect(result.status).toBe('completed');
    expect(h.mock.requests.filter(isSummariser)).toHaveLength(2);
    expect(notes.filter((n) => n.includes('compressed'))).toHaveLength(2);
    expect(notes).toContain('automatic compression stopped for this turn: the last two compressions saved less than 10 % each');
    // Still over the threshold afterwards, and no further compression was tried.
    expect(notes.at(-1)).toMatch(/stopped for this turn/);
  });
});
