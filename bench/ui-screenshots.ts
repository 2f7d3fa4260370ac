/// <reference lib="dom" />
// Screenshots of the Temporal Web UI for docs/: a dev server with its UI, a worker, a scripted model over HTTP
// and a few conversations of the kinds people look at (a 401 that FAILED, an approval that timed out, an
// interrupt, a plain success), then headless Chromium (puppeteer-core, `CHROMIUM` or /usr/bin/chromium) on the
// workflow list and on the failed and the timed-out conversation's pages.
//
//   npx tsx bench/ui-screenshots.ts [OUT_DIR]     (default docs/)
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import puppeteer, { type Page } from 'puppeteer-core';
import { Hermes, type ConversationHandle } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../src/shared/defaults';
import { ALL_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { createHermesWorker } from '../src/worker';
import { MockModel } from '../test/helpers/mock-model';
import { routed } from '../test/helpers/routed-model';

const OUT = path.resolve(process.argv[2] ?? 'docs');
const UI_PORT = 18233;

async function main(): Promise<void> {
  const exe = await temporalExecutable('cli', { install: true });
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: exe,
      ui: true,
      uiPort: UI_PORT,
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      extraArgs: ['--log-level', 'error', ...DEV_SERVER_DYNAMIC_CONFIG],
    },
  });
  const routes = routed({
    'Create notes.txt': [
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'notes.txt', content: 'one\ntwo\nthree\n' } }] },
      { content: 'Created notes.txt with three lines.' },
    ],
    'Clean the build': [
      { toolCalls: [{ id: 'rm1', name: 'terminal', arguments: { command: 'rm -rf build' } }] },
      { content: 'Removed the build directory.' },
    ],
    'Watch the logs': [{ toolCalls: [{ id: 't1', name: 'terminal', arguments: { command: 'sleep 60' } }] }],
  });
  const mock = await MockModel.start(routes.script);
  const denied = await MockModel.start([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }]);
  const address = env.connection.options.address;
  const client = new Client({ connection: await Connection.connect({ address }) });
  const taskQueue = 'hermes';
  const hermes = await Hermes.connect({ client, taskQueue });
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-ui-'));
  const worker = await createHermesWorker({
    connection: await NativeConnection.connect({ address }),
    taskQueue,
    workspace,
    profiles: {
      defaultName: 'default',
      profiles: {
        default: defineProfile('default', { baseURL: mock.baseURL, model: 'qwen2.5-coder-1.5b' }),
        revoked: defineProfile('revoked', { baseURL: denied.baseURL, model: 'gpt-4o-mini' }),
      },
    },
  });
  const shots: string[] = [];
  await worker.runUntil(async () => {
    const ok = await hermes.start({ prompt: 'Create notes.txt with three lines', workspace });
    await ok.result();
    const failed = await hermes.start({ prompt: 'Summarise the open pull requests', model: 'revoked', workspace });
    await failed.result();
    const timedOut = await hermes.start({ prompt: 'Clean the build directory', approvalTimeoutSec: 2, workspace });
    await timedOut.result();
    const interrupted = await hermes.start({ prompt: 'Watch the logs for errors', workspace });
    await sleep(1500);
    await interrupted.interrupt({ reason: 'not needed any more' });
    await interrupted.result();

    const browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
      defaultViewport: { width: 1500, height: 1150 },
    });
    try {
      const page = await browser.newPage();
      const ui = `http://127.0.0.1:${UI_PORT}/namespaces/default`;
      mkdirSync(OUT, { recursive: true });
      await shoot(page, `${ui}/workflows`, path.join(OUT, 'ui-workflow-list.png'), shots);
      await shoot(page, await pageOf(ui, failed), path.join(OUT, 'ui-failed-conversation.png'), shots);
      await shoot(page, await pageOf(ui, timedOut), path.join(OUT, 'ui-approval-timeout.png'), shots, 'Compact');
    } finally {
      await browser.close();
    }
  });
  await Promise.all([mock.close(), denied.close(), env.teardown()]);
  for (const s of shots) console.log(`wrote ${s}`);
}

async function pageOf(ui: string, h: ConversationHandle): Promise<string> {
  const { runId } = await h.workflow.describe();
  return `${ui}/workflows/${encodeURIComponent(h.id)}/${runId}/history`;
}

/**
 * The UI is a single-page app: wait for the network to settle, then a little for its rendering. `button`: the
 * text of a button to press first (the event history's Compact view), then the whole page is taken.
 */
async function shoot(page: Page, url: string, file: string, shots: string[], button?: string): Promise<void> {
  await page.goto(url, { waitUntil: 'networkidle0', timeout: 60_000 });
  await sleep(1500);
  if (button) {
    const clicked = await page.evaluate((text) => {
      const b = Array.from(document.querySelectorAll('button')).find((x) => x.textContent?.trim() === text);
      b?.click();
      return Boolean(b);
    }, button);
    if (!clicked) console.warn(`no "${button}" button on ${url}`);
    await sleep(1500);
  }
  await page.screenshot({ path: file as `${string}.png`, fullPage: Boolean(button) });
  if (existsSync(file)) shots.push(file);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
