// The browser boundary of `hermes serve` over real HTTP (src/http-api/browser-guard.ts): what a web page can send
// — a text/plain or form body (no preflight), its Origin, a rebound Host — starts nothing and approves nothing,
// while the official `openai` client and a configured origin still work.
import OpenAI from 'openai';
import { request } from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe, type ServeOptions } from '../src/http-api/server';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';

let h: Harness;
const servers: RunningServe[] = [];

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await h?.close();
});

async function serve(o: Partial<ServeOptions> = {}): Promise<RunningServe> {
  const s = await startServe({ hermes: h.hermes, port: 0, profiles: () => ({ defaultName: 'default', names: ['default'] }), ...o });
  servers.push(s);
  return s;
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: { error?: { type: string; code: string; message: string } } & Record<string, unknown>;
}

/** A request with exactly these headers (fetch would not let a test set Host). */
function raw(s: RunningServe, method: string, urlPath: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: s.port, method, path: urlPath, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const chatBody = (content: string) => JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content }] });
const exists = (workflowId: string) =>
  h.client.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      () => true,
      () => false,
    );

describe('hermes serve: the browser boundary', () => {
  it('starts nothing for a text/plain or form POST, with or without an evil Origin, nor for a rebound Host', async () => {
    const s = await serve();
    const before = h.mock.requests.length;
    const session = `web-${Date.now().toString(36)}`;
    const cases: Array<{ headers: Record<string, string>; body: string; status: number; code: string }> = [
      // What a page's simple fetch or form sends: refused for its Origin.
      {
        headers: { 'Content-Type': 'text/plain', Origin: 'http://evil.localhost' },
        body: chatBody('rm -rf ~'),
        status: 403,
        code: 'origin_not_allowed',
      },
      {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'null' },
        body: `${chatBody('x')}=`,
        status: 403,
        code: 'origin_not_allowed',
      },
      // A page that could send JSON (after a preflight) is still refused for its Origin.
      {
        headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example' },
        body: chatBody('x'),
        status: 403,
        code: 'origin_not_allowed',
      },
      // Without an Origin, a body that is not declared JSON is not read.
      { headers: { 'Content-Type': 'text/plain' }, body: chatBody('x'), status: 415, code: 'unsupported_media_type' },
      { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=b', status: 415, code: 'unsupported_media_type' },
      { headers: {}, body: chatBody('x'), status: 415, code: 'unsupported_media_type' },
      // DNS rebinding: the page's origin resolves to 127.0.0.1, its requests carry its own Host.
      { headers: { 'Content-Type': 'application/json', Host: 'attacker.example' }, body: chatBody('x'), status: 403, code: 'host_not_allowed' },
      {
        headers: { 'Content-Type': 'application/json', Host: `attacker.example:${s.port}` },
        body: chatBody('x'),
        status: 403,
        code: 'host_not_allowed',
      },
    ];
    await h.run(async () => {
      for (const [i, c] of cases.entries()) {
        const key = `web-task-${i}-${Date.now().toString(36)}`;
        const r = await raw(s, 'POST', '/v1/chat/completions', { 'X-Hermes-Session-Id': session, 'Idempotency-Key': key, ...c.headers }, c.body);
        expect({ status: r.status, code: r.json.error?.code }, JSON.stringify(c.headers)).toEqual({ status: c.status, code: c.code });
        expect(r.headers['access-control-allow-origin']).toBeUndefined();
      }
      const noSession = await raw(
        s,
        'POST',
        '/v1/chat/completions',
        { 'Content-Type': 'text/plain', Origin: 'http://evil.localhost', 'Idempotency-Key': 'web-task-x' },
        chatBody('x'),
      );
      expect(noSession.status).toBe(403);
      // GETs too: a rebound page reading the sessions or models gets nothing.
      expect((await raw(s, 'GET', '/v1/models', { Host: 'attacker.example' })).status).toBe(403);
      expect((await raw(s, 'GET', `/v1/sessions/${session}`, { Origin: 'http://evil.localhost' })).status).toBe(403);
      // A preflight from a page is refused: no CORS for an origin nobody configured.
      const pre = await raw(s, 'OPTIONS', '/v1/chat/completions', {
        Origin: 'http://evil.localhost',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      });
      expect(pre.status).toBe(403);
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    });
    expect(await exists(`hermes-session-${session}`)).toBe(false);
    expect(await exists('hermes-request-web-task-x')).toBe(false);
    expect(h.mock.requests.length).toBe(before);
    // Loopback names in Host are this machine: the official client (Content-Type: application/json) still works.
    for (const host of [`localhost:${s.port}`, `127.0.0.1:${s.port}`, '[::1]']) {
      expect((await raw(s, 'GET', '/v1/models', { Host: host })).status, host).toBe(200);
    }
    h.mock.push(answer('still works'));
    const ok = await h.run(() =>
      new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'unused', maxRetries: 0 }).chat.completions.create({
        model: 'hermes',
        messages: [{ role: 'user', content: 'hello' }],
      }),
    );
    expect(ok.choices[0]!.message.content).toBe('still works');
  });

  it('refuses an approve sent as text/plain or from a page: the pending approval stays and the command does not run', async () => {
    const logged: string[] = [];
    const s = await serve({ log: (line) => logged.push(line) });
    const victim = path.join(h.workspace, 'victimdir');
    mkdirSync(victim, { recursive: true });
    const session = `approve-${Date.now().toString(36)}`;
    h.mock.push(toolCall('terminal', { command: `rm -rf ${victim}` }, 'rm1'), answer('left it'));
    await h.run(async () => {
      const turn = fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Hermes-Session-Id': session },
        body: chatBody('clean up'),
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
      const decision = JSON.stringify({ call_id: 'rm1', decision: 'approve' });
      const plain = await raw(s, 'POST', `/v1/sessions/${session}/approve`, { 'Content-Type': 'text/plain' }, decision);
      expect({ status: plain.status, code: plain.json.error?.code }).toEqual({ status: 415, code: 'unsupported_media_type' });
      const fromPage = await raw(
        s,
        'POST',
        `/v1/sessions/${session}/approve`,
        { 'Content-Type': 'text/plain', Origin: 'http://evil.localhost' },
        decision,
      );
      expect({ status: fromPage.status, code: fromPage.json.error?.code }).toEqual({ status: 403, code: 'origin_not_allowed' });
      const rebound = await raw(
        s,
        'POST',
        `/v1/sessions/${session}/approve`,
        { 'Content-Type': 'application/json', Host: 'attacker.example' },
        decision,
      );
      expect(rebound.status).toBe(403);
      // Untouched: still pending, and the directory is there.
      await new Promise((r) => setTimeout(r, 500));
      expect(await pending()).toEqual(['rm1']);
      expect(existsSync(victim)).toBe(true);
      // The client that may (JSON, no page origin) decides it.
      const deny = await raw(
        s,
        'POST',
        `/v1/sessions/${session}/approve`,
        { 'Content-Type': 'application/json' },
        JSON.stringify({ call_id: 'rm1', decision: 'deny' }),
      );
      expect(deny.status).toBe(200);
      // The turn's answer is read with ?wait.
      expect(await (await fetch(`${s.url}/v1/sessions/${session}?wait=30`)).json()).toMatchObject({ last_turn: { answer: 'left it' } });
    });
    expect(existsSync(victim)).toBe(true);
  });

  it('answers CORS for a configured origin only; a Host of a configured name is accepted; a token lifts the Host check, not the Origin one', async () => {
    const s = await serve({ allowOrigins: ['http://localhost:3000'], allowHosts: ['hermes.internal'] });
    const pre = await raw(s, 'OPTIONS', '/v1/chat/completions', {
      Origin: 'http://localhost:3000',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type, authorization',
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(String(pre.headers['access-control-allow-headers'])).toMatch(/Content-Type/);
    const get = await raw(s, 'GET', '/v1/models', { Origin: 'http://localhost:3000', Host: 'hermes.internal:8642' });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect((await raw(s, 'GET', '/v1/models', { Origin: 'http://localhost:3001' })).status).toBe(403);

    const t = await serve({ token: 'tok' });
    const auth = { Authorization: 'Bearer tok' };
    expect((await raw(t, 'GET', '/v1/models', { ...auth, Host: 'box.lan:8642' })).status).toBe(200);
    expect((await raw(t, 'GET', '/v1/models', { ...auth, Origin: 'http://evil.localhost' })).status).toBe(403);
  });
});
