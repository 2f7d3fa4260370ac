// The browser boundary of `hermes serve` in a real headless Chromium: a page served from another origin tries
// everything a page can send — a simple text/plain fetch, a JSON fetch that needs a preflight, and form posts —
// to start a conversation and to approve a pending `rm -rf`. Nothing starts, the model gets no request, and the
// approval stays pending (the directory is still there). The requests are seen arriving at serve, so a browser
// that never sent them cannot make this pass.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../src/http-api/server';
import { chromiumRequired, findChromium } from './helpers/chromium';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';

const CHROMIUM = findChromium();
if (!CHROMIUM.ok && !chromiumRequired()) console.warn(`[serve-chromium.test] skipping the real-browser test: ${CHROMIUM.why}; .ci/run installs it`);

let h: Harness;
let s: RunningServe;
let page: Server;
const logged: string[] = [];
let browser: Browser | undefined;

beforeAll(async () => {
  h = await createHarness();
  s = await startServe({
    hermes: h.hermes,
    port: 0,
    profiles: () => ({ defaultName: 'default', names: ['default'] }),
    log: (line) => logged.push(line),
  });
  // The attacker's site: another port of this machine is another origin.
  page = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>a page</title><body></body>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => page?.close(r));
  await s?.close();
  await h?.close();
});

interface Seen {
  method: string;
  url: string;
  origin?: string;
}

const chatBody = (session: string, content: string) =>
  JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content }], metadata: { session_id: session } });

describe('hermes serve in a real browser', () => {
  it.skipIf(!CHROMIUM.ok && !chromiumRequired())(
    'a page on another origin starts nothing and approves nothing: simple fetch, preflighted fetch, form posts',
    async () => {
      if (!CHROMIUM.ok) throw new Error(`Chromium is required here (HERMES_REQUIRE_CHROMIUM=1) but ${CHROMIUM.why}`);
      const seen: Seen[] = [];
      s.server.on('request', (req) => seen.push({ method: req.method ?? '', url: req.url ?? '', origin: req.headers.origin }));
      const victim = path.join(h.workspace, 'victimdir');
      mkdirSync(victim, { recursive: true });
      const session = `victim-${Date.now().toString(36)}`;
      h.mock.push(toolCall('terminal', { command: `rm -rf ${victim}` }, 'rm1'), answer('left it'));
      browser = await puppeteer.launch({
        executablePath: CHROMIUM.path,
        headless: true,
        args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run'],
      });
      const tab = await browser.newPage();
      const pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
      await tab.goto(pageUrl);

      await h.run(async () => {
        const turn = fetch(`${s.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Hermes-Session-Id': session },
          body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content: 'clean up' }] }),
        });
        const pending = async () => {
          const v = (await (await fetch(`${s.url}/v1/sessions/${session}`)).json()) as { state?: { pendingApprovals?: Array<{ callId: string }> } };
          return v.state?.pendingApprovals?.map((a) => a.callId);
        };
        await waitFor('the approval pending', async () => ((await pending().catch(() => undefined))?.includes('rm1') ? true : undefined), 30_000);
        // The request is answered while the approval is pending, with the wait (not held until someone decides it).
        const said = await Promise.race([turn, new Promise<undefined>((r) => setTimeout(r, 30_000))]);
        expect(said, `no answer while waiting; the server logged: ${logged.join(' | ')}`).toBeDefined();
        expect(await said!.json()).toMatchObject({ hermes: { status: 'waiting', call_id: 'rm1' } });
        const modelCalls = h.mock.requests.length;
        const api = s.url;
        const approve = JSON.stringify({ call_id: 'rm1', decision: 'approve' });

        // The page's script: each fetch as a page would make it; what the page could learn of the answer is returned.
        const outcomes = await tab.evaluate(
          async (a: { api: string; session: string; approve: string; chat: string; chatPre: string }) => {
            const tryFetch = (url: string, init: RequestInit) =>
              fetch(url, init).then(
                (r) => `status ${r.status} (${r.type})`,
                (e: Error) => `failed: ${e.name}`,
              );
            return {
              simpleChat: await tryFetch(`${a.api}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: a.chat }),
              simpleChatNoCors: await tryFetch(`${a.api}/v1/chat/completions`, { method: 'POST', mode: 'no-cors', body: a.chat }),
              simpleApprove: await tryFetch(`${a.api}/v1/sessions/${a.session}/approve`, {
                method: 'POST',
                mode: 'no-cors',
                headers: { 'Content-Type': 'text/plain' },
                body: a.approve,
              }),
              preflightedChat: await tryFetch(`${a.api}/v1/chat/completions`, {
                method: 'POST',
                headers: { 'Content-Type': 'application/json' },
                body: a.chatPre,
              }),
              preflightedApprove: await tryFetch(`${a.api}/v1/sessions/${a.session}/approve`, {
                method: 'POST',
                headers: { 'Content-Type': 'application/json' },
                body: a.approve,
              }),
            };
          },
          { api, session, approve, chat: chatBody('browser-simple', 'rm -rf ~'), chatPre: chatBody('browser-pre', 'rm -rf ~') },
        );
        // Refused: the simple ones reach serve and get a 403 the page cannot read; the preflighted ones never leave the preflight.
        expect(outcomes).toEqual({
          simpleChat: 'failed: TypeError',
          simpleChatNoCors: 'status 0 (opaque)',
          simpleApprove: 'status 0 (opaque)',
          preflightedChat: 'failed: TypeError',
          preflightedApprove: 'failed: TypeError',
        });

        // Form posts: text/plain forms can carry a JSON-looking body (`{"…":"=…"}`), urlencoded ones a field.
        const forms: Array<{ action: string; enctype: string; name: string; value: string }> = [
          { action: `${api}/v1/chat/completions`, enctype: 'text/plain', ...jsonForm(chatBody('browser-form', 'rm -rf ~')) },
          { action: `${api}/v1/sessions/${session}/approve`, enctype: 'text/plain', ...jsonForm(approve) },
          { action: `${api}/v1/sessions/${session}/approve`, enctype: 'application/x-www-form-urlencoded', name: 'call_id', value: 'rm1' },
        ];
        for (const [i, f] of forms.entries()) {
          const before = seen.length;
          await tab.evaluate(
            (f: { action: string; enctype: string; name: string; value: string }, i: number) => {
              const frame = document.createElement('iframe');
              frame.name = `sink${i}`;
              document.body.append(frame);
              const form = document.createElement('form');
              Object.assign(form, { method: 'POST', action: f.action, enctype: f.enctype, target: frame.name });
              const input = document.createElement('input');
              Object.assign(input, { type: 'hidden', name: f.name, value: f.value });
              form.append(input);
              document.body.append(form);
              form.submit();
            },
            f,
            i,
          );
          await waitFor(`form ${i} reaching serve`, async () => (seen.slice(before).some((r) => r.method === 'POST') ? true : undefined), 10_000);
        }

        // Every attempt reached serve (a browser that sent nothing would prove nothing), each with the page's Origin.
        const origin = pageUrl.replace(/\/$/, '');
        const fromPage = seen.filter((r) => r.origin === origin);
        const count = (method: string, url: string) => fromPage.filter((r) => r.method === method && r.url === url).length;
        expect(count('POST', '/v1/chat/completions')).toBe(3); // two simple fetches, one form
        expect(count('POST', `/v1/sessions/${session}/approve`)).toBe(3); // one simple fetch, two forms
        // The preflighted ones: only their OPTIONS arrived, refused, so the POST was never sent.
        expect(count('OPTIONS', '/v1/chat/completions')).toBe(1);
        expect(count('OPTIONS', `/v1/sessions/${session}/approve`)).toBe(1);

        // Nothing started, nothing approved.
        await new Promise((r) => setTimeout(r, 1_000));
        expect(h.mock.requests.length).toBe(modelCalls);
        for (const id of ['browser-simple', 'browser-pre', 'browser-form']) expect(await exists(`hermes-session-${id}`), id).toBe(false);
        expect(await pending()).toEqual(['rm1']);
        expect(existsSync(victim)).toBe(true);

        // The API's own client still decides it.
        const deny = await fetch(`${s.url}/v1/sessions/${session}/approve`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ call_id: 'rm1', decision: 'deny' }),
        });
        expect(deny.status).toBe(200);
        // The turn's answer is read with ?wait.
        expect(await (await fetch(`${s.url}/v1/sessions/${session}?wait=30`)).json()).toMatchObject({ last_turn: { answer: 'left it' } });
      });
      expect(existsSync(victim)).toBe(true);
      // No task conversation either: the only workflow on the queue is the victim's session.
      const ids: string[] = [];
      for await (const w of h.client.workflow.list({ query: `TaskQueue = "${h.taskQueue}"` })) ids.push(w.workflowId);
      expect(ids).toEqual([`hermes-session-${session}`]);
    },
    90_000,
  );
});

/** A text/plain form field whose `name=value` line is the JSON body: the name is all of it but its last `"}`… */
function jsonForm(json: string): { name: string; value: string } {
  // `{"…","pad":"` + `=` + `"}` → `{"…","pad":"="}`: valid JSON, as a page would craft it.
  return { name: `${json.slice(0, -1)},"pad":"`, value: '"}' };
}

function exists(workflowId: string): Promise<boolean> {
  return h.client.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      () => true,
      () => false,
    );
}
