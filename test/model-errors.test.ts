// Model failures are classified into stable types and retried (or not) by Temporal's retry policy.
import { afterEach, describe, expect, it } from 'vitest';
import { defineProfile } from '../src/llm/profiles';
import { answer, createHarness, type Harness } from './helpers/harness';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function attemptsOf(id: string): Promise<number[]> {
  const history = await h.client.workflow.getHandle(id).fetchHistory();
  return (history.events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 0] : []));
}

describe('model failures', () => {
  it('retries a 500 twice and completes on the third attempt', async () => {
    h = await createHarness([{ status: 500 }, { status: 503 }, answer('third time lucky')]);
    const { id, result } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'go' });
      return { id: run.id, result: await run.result() };
    });
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('third time lucky');
    expect(h.mock.requests).toHaveLength(3);
    expect(await attemptsOf(id)).toEqual([3]);
  });

  it('fails fast on 401 with reason ModelAuth after one attempt', async () => {
    h = await createHarness([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }]);
    const { id, result } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'go' });
      return { id: run.id, result: await run.result() };
    });
    expect(result.status).toBe('failed');
    expect(result.reason).toBe('ModelAuth');
    expect(result.error).toMatch(/401/);
    expect(h.mock.requests).toHaveLength(1);
    // Temporal sees a FAILED workflow whose failure type is the reason, with the result in its details.
    const handle = h.client.workflow.getHandle(id);
    expect((await handle.describe()).status.name).toBe('FAILED');
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e as { cause?: { type?: string; nonRetryable?: boolean; details?: unknown[] } },
    );
    expect(err?.cause).toMatchObject({ type: 'ModelAuth', nonRetryable: true });
    expect(err?.cause?.details?.[0]).toMatchObject({ status: 'failed', reason: 'ModelAuth', iterations: 1 });
    const listed: string[] = [];
    for await (const w of h.client.workflow.list({ query: `WorkflowId="${id}" AND ExecutionStatus="Failed"` })) listed.push(w.workflowId);
    expect(listed).toEqual([id]);
  });

  it('waits as long as Retry-After says on 429', async () => {
    h = await createHarness([{ status: 429, headers: { 'retry-after': '2' } }, answer('after the wait')]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('completed');
    const [first, second] = h.mock.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(2_000);
  });

  it('treats 400 as a non-retryable bad request', async () => {
    h = await createHarness([{ status: 400, body: { error: { message: 'unsupported parameter' } } }]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result).toMatchObject({ status: 'failed', reason: 'ModelBadRequest' });
    expect(h.mock.requests).toHaveLength(1);
  });

  it('cuts old tool output to a line and retries on context overflow', async () => {
    const big = 'x'.repeat(5_000);
    h = await createHarness([
      { toolCalls: [{ id: 'a', name: 'terminal', arguments: { command: `printf '${big}'` } }] },
      { toolCalls: [{ id: 'b', name: 'terminal', arguments: { command: 'echo 1' } }] },
      { toolCalls: [{ id: 'c', name: 'terminal', arguments: { command: 'echo 2' } }] },
      { toolCalls: [{ id: 'd', name: 'terminal', arguments: { command: 'echo 3' } }] },
      { status: 400, body: { error: { message: "This model's maximum context length is 10 tokens" } } },
      answer('fits now'),
    ]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('completed');
    const retried = h.mock.requests[5]!.messages;
    const a = retried.find((m) => m.role === 'tool' && m.tool_call_id === 'a');
    expect(String(a!.content)).toMatch(/^\[terminal\] printf 'x+… → exit 0, 1 line$/);
  });

  it('switches to the fallback profile when the primary stays unavailable', async () => {
    h = await createHarness([{ status: 500 }, { status: 502 }, answer('from fallback')], (baseURL) => ({
      defaultName: 'primary',
      profiles: {
        primary: defineProfile('primary', { baseURL, model: 'big-model' }),
        backup: defineProfile('backup', { baseURL, model: 'small-model' }),
      },
    }));
    const result = await h.run(async () =>
      (await h.hermes.start({ prompt: 'go', model: 'primary', fallbackModel: 'backup', modelMaxAttempts: 2 })).result(),
    );
    expect(result.status).toBe('completed');
    expect(h.mock.requests.at(-1)!.body.model).toBe('small-model');
    expect(h.mock.requests.slice(0, 2).map((r) => r.body.model)).toEqual(['big-model', 'big-model']);
  });
});
