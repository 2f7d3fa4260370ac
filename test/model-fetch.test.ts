// The fetch under the model SDKs (src/llm/http.ts), against real local HTTP servers and through the real openai
// client: what the SDK needs of a fetch (status, headers, a streamed body, the abort) and what a user reads when the
// endpoint cannot be reached.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { APIConnectionError, APIUserAbortError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFetch } from '../src/llm/http';
import { classifyModelError } from '../src/llm/errors';
import { waitFor } from './helpers/wait';

let server: Server;
let base: string;
const seen: Array<{ url: string; method: string; auth?: string; body: string }> = [];
let hangClosed = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ url: req.url!, method: req.method!, auth: req.headers.authorization, body });
      if (req.url === '/moved/v1/chat/completions') {
        res.writeHead(307, { location: '/v1/chat/completions' }).end();
      } else if (req.url === '/v1/empty') {
        res.writeHead(204, { 'x-note': 'nothing' }).end();
      } else if (req.url === '/v1/hang/chat/completions') {
        res.on('close', () => (hangClosed = true));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(chunk('partial'))}\n\n`); // and never ends
      } else if (JSON.parse(body || '{}').stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'set-cookie': ['a=1', 'b=2'] });
        res.write(`data: ${JSON.stringify(chunk('Hello'))}\n\n`);
        res.write(`data: ${JSON.stringify(chunk(', world'))}\n\n`);
        res.end('data: [DONE]\n\n');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            created: 0,
            model: 'm',
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'plain' } }],
          }),
        );
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function chunk(content: string) {
  return { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] };
}

const client = (baseURL: string) => new OpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, timeout: 10_000, fetch: modelFetch(10_000) });

describe('the model fetch', () => {
  it('carries a plain and a streamed completion through the openai client, with the key and the JSON body', async () => {
    const plain = await client(`${base}/v1`).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(plain.choices[0]!.message.content).toBe('plain');
    const stream = await client(`${base}/v1`).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello, world');
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', url: '/v1/chat/completions', auth: 'Bearer sk-test' });
    expect(JSON.parse(last.body)).toMatchObject({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  });

  it('follows a redirect with the same method and body, as fetch does', async () => {
    const before = seen.length;
    const r = await client(`${base}/moved/v1`).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'moved' }] });
    expect(r.choices[0]!.message.content).toBe('plain');
    expect(seen.slice(before).map((s) => `${s.method} ${s.url}`)).toEqual(['POST /moved/v1/chat/completions', 'POST /v1/chat/completions']);
    expect(JSON.parse(seen.at(-1)!.body).messages[0].content).toBe('moved');
  });

  it('answers a status without a body with an empty Response and every header', async () => {
    const res = await modelFetch(5_000)(`${base}/v1/empty`, { method: 'GET' });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(res.headers.get('x-note')).toBe('nothing');
    const streamed = await modelFetch(5_000)(`${base}/v1/chat/completions`, { method: 'POST', body: '{"stream":true}' });
    expect(streamed.headers.get('set-cookie')).toBe('a=1, b=2');
    await streamed.text();
  });

  it('stops reading when the signal aborts mid-stream, and closes the connection', async () => {
    const ac = new AbortController();
    const stream = await client(`${base}/v1/hang`).chat.completions.create({ model: 'm', messages: [], stream: true }, { signal: ac.signal });
    const got: string[] = [];
    // The SDK ends an aborted stream's iteration quietly (src/llm/transports/openai-client.ts checks the signal).
    for await (const c of stream) {
      got.push(c.choices[0]?.delta.content ?? '');
      ac.abort();
    }
    expect(got).toEqual(['partial']);
    await waitFor('the endpoint to see the connection closed', () => hangClosed);
    // Aborted before the headers: the SDK's own abort error.
    const early = new AbortController();
    early.abort();
    await expect(client(`${base}/v1`).chat.completions.create({ model: 'm', messages: [] }, { signal: early.signal })).rejects.toBeInstanceOf(
      APIUserAbortError,
    );
  });

  it('names what failed when nothing listens, where fetch said only "fetch failed"', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/v1`;
    await new Promise((r) => dead.close(r));
    const err = await client(url)
      .chat.completions.create({ model: 'm', messages: [] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect((classifyModelError(err, url) as Error).message).toMatch(new RegExp(`cannot reach the model endpoint ${url}: .*ECONNREFUSED`));
  });
});
