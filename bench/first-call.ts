// Where the time before a conversation's first model call goes: N one-step conversations on a dev server
// configured as the product starts it; for each, the history's event times from the start request to the first
// model request (the mock's arrival time). `npx tsx bench/first-call.ts [N]`.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleOptions } from '../src/startup/bundle';
import { Hermes } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { installRuntimeLogger, logger } from '../src/observe/logger';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../src/shared/defaults';
import { ALL_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { createHermesWorker } from '../src/worker';
import { MockModel } from '../test/helpers/mock-model';

installRuntimeLogger('ERROR');
logger.level = 'warn';

async function main() {
  const n = Number(process.argv[2] ?? 8);
  const exe = await temporalExecutable('cli', { install: true });
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: exe, searchAttributes: ALL_SEARCH_ATTRIBUTES, extraArgs: ['--log-level', 'error', ...DEV_SERVER_DYNAMIC_CONFIG] },
  });
  const mock = await MockModel.start();
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-first-'));
  const worker = await createHermesWorker({
    connection: env.nativeConnection,
    taskQueue: 'first',
    profiles: { defaultName: 'default', profiles: { default: defineProfile('default', { baseURL: mock.baseURL, model: 'mock-model' }) } },
    workspace,
    workflowBundle: await bundleWorkflowCode(bundleOptions()),
  });
  const running = worker.run();
  const hermes = await Hermes.connect({ client: env.client, taskQueue: 'first' });
  const rows: Record<string, number[]> = {};
  for (let i = 0; i < n; i++) {
    mock.push({ content: 'hi' });
    const t0 = Date.now();
    const h = await hermes.start({
      prompt: `hello ${i}`,
      ...(process.env.PROBE_TOOLS !== undefined ? { tools: process.env.PROBE_TOOLS ? process.env.PROBE_TOOLS.split(',') : [] } : {}),
    });
    await h.result();
    const req = mock.requests.at(-1)!;
    const events = (await h.workflow.fetchHistory()).events ?? [];
    const ms = (e: (typeof events)[number]) => Number(e.eventTime!.seconds) * 1000 + Math.round(e.eventTime!.nanos! / 1e6);
    const start = ms(events[0]!);
    const row = (k: string, v: number) => (rows[k] ??= []).push(v);
    row('client start → WorkflowExecutionStarted', start - t0);
    const wftStarted = events.find((e) => e.workflowTaskStartedEventAttributes);
    row('→ first workflow task started', ms(wftStarted!) - start);
    const sched = events.find((e) => e.activityTaskScheduledEventAttributes);
    row('→ callModel scheduled (first WFT done, local activities inside)', ms(sched!) - start);
    const started = events.find((e) => e.activityTaskStartedEventAttributes);
    row('→ callModel started', ms(started!) - start);
    row('→ model request at the mock', req.at - start);
    row('client start → model request', req.at - t0);
    row('markers (local activities) in the first task', events.filter((e) => e.markerRecordedEventAttributes).length);
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  for (const [k, v] of Object.entries(rows)) console.log(`${k.padEnd(64)} median ${med(v)} ms  (${v.join(', ')})`);
  worker.shutdown();
  await running;
  await mock.close();
  await env.teardown();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
