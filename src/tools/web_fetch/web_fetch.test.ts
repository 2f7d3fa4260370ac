// web_fetch against local HTTP servers started here (issue 14 item 6): the address policy (after DNS resolution
// and on every redirect), HTML to text, content types, the size and time caps, HTTP errors as readable results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadWebConfig } from '../../llm/profiles';
import { createWebFetch, type WebFetchOptions } from './handler';
import { addressKind, AddressGuard, validAllowEntry } from './address-policy';
import { htmlTitle } from './response-body';
import { ToolError, type ToolContext } from '../handler';

type Route = (req: IncomingMessage, res: ServerResponse) => void;
const routes: Record<string, Route> = {};
/** Paths the server was asked for, in order: a refused fetch must leave no trace here. */
const hits: string[] = [];
let server: Server;
let port: number;
let beats = 0;
/** Bytes the /big route had written when its connection closed. */
let bigSent = 0;

const ctx = (signal = new AbortController().signal): ToolContext => ({
  workspace: os.tmpdir(),
  signal,
  heartbeat: () => void beats++,
  terminalTimeoutSec: 30,
  callId: 'c1',
  processDir: os.tmpdir(),
});

/** "public.test" stands for a public host the worker allows by name; here it resolves to this machine. */
const resolve: WebFetchOptions['resolve'] = async (host) => {
  if (host === 'public.test') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'mixed.test')
    return [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
  if (host === 'metadata.test') return [{ address: '169.254.169.254', family: 4 }];
  if (host === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

function fetcher(o: WebFetchOptions = {}) {
  const handler = createWebFetch({ resolve, ...o });
  return (url: string, signal?: AbortSignal) => handler({ url }, ctx(signal));
}
const byDefault = fetcher();
const publicOnly = fetcher({ allowHosts: ['public.test'] });
const allowPrivate = fetcher({ allowPrivate: true });
const local = (p: string) => `http://127.0.0.1:${port}${p}`;
const pub = (p: string) => `http://public.test:${port}${p}`;

async function refusal(p: Promise<string>): Promise<string> {
  const err = await p.then(
    (ok) => new Error(`expected a refusal, got: ${ok.slice(0, 200)}`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return (err as Error).message;
}

const PAGE = `<!doctype html><html><head><title>Release notes &amp; more</title><style>body{color:red}</style>
<script>document.write('tracking')</script></head><body><nav><a href="/docs/">Docs</a></nav>
<h1>Version 2.0</h1><p>The <b>new</b> engine is <a href="engine.html">described here</a>.</p>
<table><tr><th>Key</th><th>Value</th></tr><tr><td>speed</td><td>fast</td></tr></table>
<ul><li>first item</li><li>second item</li></ul><img src="logo.png" alt="logo"></body></html>`;

beforeAll(async () => {
  Object.assign(routes, {
    '/page.html': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
    '/secret': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('the secret'),
    '/to-local': (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${port}/secret` }).end(),
    '/to-localhost': (_req, res) => res.writeHead(301, { location: `http://localhost:${port}/secret` }).end(),
    '/to-v6': (_req, res) => res.writeHead(307, { location: `http://[::ffff:127.0.0.1]:${port}/secret` }).end(),
    '/to-metadata': (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    '/to-file': (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    '/to-page': (_req, res) => res.writeHead(303, { location: '/page.html' }).end(),
    '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
    '/json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"items":[1,2]}'),
    '/latin1': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
    '/png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': '70000' }).end(Buffer.alloc(70_000, 1)),
    '/untyped-binary': (_req, res) => res.end(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08])),
    '/untyped-html': (_req, res) => res.end('<html><body><p>sniffed</p></body></html>'),
    '/gzip': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('unzipped text')),
    '/big': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const line = 'x'.repeat(1023) + '\n';
      let sent = 0;
      // Up to 50 MB, written as the client reads: a fetch that ignores its cap would take long and fail the test.
      const more = () => {
        while (sent < 50 * 1024 * 1024) {
          sent += 1024;
          if (!res.write(line)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => (bigSent = sent));
      more();
    },
    '/slow': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first bytes\n'); // then nothing: the time cap must end it
    },
    '/hang': () => undefined, // never answers
    '/404': (_req, res) =>
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>No such page</h1><p>Try /docs.</p></body></html>'),
    '/503': (_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"overloaded"}'),
    '/empty': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(),
  } satisfies Record<string, Route>);
  server = createServer((req, res) => {
    hits.push(req.url!);
    const route = routes[req.url!];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('address policy', () => {
  it('refuses loopback by default, by IP literal and by name, without connecting', async () => {
    hits.length = 0;
    expect(await refusal(byDefault(local('/secret')))).toMatch(/^127\.0\.0\.1 is a loopback address; web_fetch refuses .*HERMES_WEB_ALLOW_PRIVATE=1/);
    expect(await refusal(byDefault(`http://localhost:${port}/secret`))).toMatch(/^localhost resolves to 127\.0\.0\.1, a loopback address/);
    expect(await refusal(byDefault(`http://[::1]:${port}/secret`))).toMatch(/^::1 is a loopback address/);
    expect(await refusal(byDefault(`http://[::ffff:127.0.0.1]:${port}/secret`))).toMatch(/loopback address/);
    expect(await refusal(byDefault('http://169.254.169.254/latest/meta-data/'))).toMatch(/^169\.254\.169\.254 is a link-local address/);
    expect(await refusal(byDefault('http://metadata.test/'))).toMatch(/resolves to 169\.254\.169\.254, a link-local address/);
    expect(await refusal(byDefault('http://10.1.2.3/'))).toMatch(/private address/);
    // A name with a public and a private address is refused whichever the socket would have picked.
    expect(await refusal(byDefault(`http://mixed.test:${port}/`))).toMatch(/^mixed\.test resolves to 127\.0\.0\.1, a loopback address/);
    expect(await refusal(allowPrivate('http://0.0.0.0/'))).toMatch(/unspecified address; web_fetch only fetches from unicast addresses/);
    expect(hits).toEqual([]);
  });

  it('refuses a redirect from an allowed host to loopback, link-local or another scheme, on every hop', async () => {
    hits.length = 0;
    expect(await refusal(publicOnly(pub('/to-local')))).toMatch(/^127\.0\.0\.1 is a loopback address/);
    expect(await refusal(publicOnly(pub('/to-localhost')))).toMatch(/^localhost resolves to 127\.0\.0\.1/);
    expect(await refusal(publicOnly(pub('/to-v6')))).toMatch(/loopback address/);
    expect(await refusal(publicOnly(pub('/to-metadata')))).toMatch(/169\.254\.169\.254 is a link-local address/);
    expect(await refusal(publicOnly(pub('/to-file')))).toMatch(/^redirected to file:\/\/\/etc\/passwd, file: URLs are not fetched/);
    // The redirecting host answered; the target never did.
    expect(hits).toEqual(['/to-local', '/to-localhost', '/to-v6', '/to-metadata', '/to-file']);
    // The same redirect with private addresses allowed lands.
    expect(await allowPrivate(local('/to-local'))).toContain('the secret');
  });

  it('fetches loopback when configured: everything private, or named hosts and ranges only', async () => {
    expect(await allowPrivate(local('/secret'))).toBe(`URL: ${local('/secret')}\nStatus: 200; text/plain, 10 B\n\nthe secret`);
    const named = fetcher({ allowHosts: ['localhost'] });
    expect(await named(`http://localhost:${port}/secret`)).toContain('the secret');
    expect(await refusal(named(local('/secret')))).toMatch(/loopback/);
    expect(await fetcher({ allowHosts: ['127.0.0.0/8'] })(local('/secret'))).toContain('the secret');
    expect(await fetcher({ allowHosts: ['*.test'] })(pub('/secret'))).toContain('the secret');
  });

  it('reads the policy from HERMES_WEB_ALLOW_PRIVATE, HERMES_WEB_ALLOW_HOSTS and the config file', () => {
    const none = loadWebConfig({ HERMES_CONFIG: '/nonexistent/hermes.config.json' });
    expect(none).toEqual({ allowPrivate: false, allowHosts: [] });
    const env = loadWebConfig({
      HERMES_CONFIG: '/nonexistent/x.json',
      HERMES_WEB_ALLOW_PRIVATE: '1',
      HERMES_WEB_ALLOW_HOSTS: 'intranet.local, 10.0.0.0/8',
    });
    expect(env).toEqual({ allowPrivate: true, allowHosts: ['intranet.local', '10.0.0.0/8'] });
    expect(() => loadWebConfig({ HERMES_CONFIG: '/nonexistent/x.json', HERMES_WEB_ALLOW_HOSTS: 'http://x/' })).toThrow(
      /HERMES_WEB_ALLOW_HOSTS: "http:\/\/x\/"/,
    );
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-webcfg-'));
    const file = path.join(dir, 'hermes.config.json');
    writeFileSync(file, JSON.stringify({ web: { allowHosts: ['wiki.corp.example'], maxBytes: 500_000, timeoutSec: 5 } }));
    expect(loadWebConfig({ HERMES_CONFIG: file, HERMES_WEB_ALLOW_HOSTS: '192.168.0.0/16' })).toEqual({
      allowPrivate: false,
      allowHosts: ['wiki.corp.example', '192.168.0.0/16'],
      maxBytes: 500_000,
      timeoutMs: 5_000,
    });
    writeFileSync(file, JSON.stringify({ web: { allowHosts: ['http://wiki/'] } }));
    expect(() => loadWebConfig({ HERMES_CONFIG: file })).toThrow(/invalid configuration in .*hermes\.config\.json[\s\S]*web\.allowHosts\[0\]/);
    rmSync(dir, { recursive: true, force: true });
    expect(['a.b', '*.corp.example', '10.0.0.0/8', '::1', '[fd00::]/8', 'localhost'].every(validAllowEntry)).toBe(true);
    expect(['http://x', '10.0.0.0/33', 'a b', '*', 'x/y'].some(validAllowEntry)).toBe(false);
  });

  it('classifies the special ranges, IPv4-mapped, NAT64 and 6to4 forms included', () => {
    const kinds = Object.fromEntries(
      [
        '127.0.0.1',
        '10.0.0.1',
        '172.16.5.4',
        '192.168.1.1',
        '100.64.0.1',
        '169.254.169.254',
        '0.0.0.0',
        '224.0.0.1',
        '::1',
        '::',
        'fd12::1',
        'fe80::1',
        'ff02::1',
      ].map((a) => [a, addressKind(a)]),
    );
    expect(kinds).toEqual({
      '127.0.0.1': 'loopback',
      '10.0.0.1': 'private',
      '172.16.5.4': 'private',
      '192.168.1.1': 'private',
      '100.64.0.1': 'carrier-grade NAT',
      '169.254.169.254': 'link-local',
      '0.0.0.0': 'unspecified',
      '224.0.0.1': 'multicast',
      '::1': 'loopback',
      '::': 'unspecified',
      'fd12::1': 'unique local',
      'fe80::1': 'link-local',
      'ff02::1': 'multicast',
    });
    expect([addressKind('::ffff:10.0.0.1'), addressKind('64:ff9b::a9fe:a9fe'), addressKind('2002:7f00:1::')]).toEqual([
      'private',
      'link-local',
      'loopback',
    ]);
    expect(['8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'].map(addressKind)).toEqual([undefined, undefined, undefined, undefined]);
    expect(new AddressGuard({}).refusal('example.com', '93.184.216.34')).toBeUndefined();
  });
});

describe('content', () => {
  it('reduces HTML to readable text: title, headings, absolute links, tables, lists; no script or style', async () => {
    const out = await allowPrivate(local('/page.html'));
    expect(out.split('\n').slice(0, 3)).toEqual([
      `URL: ${local('/page.html')}`,
      'Title: Release notes & more',
      expect.stringMatching(/^Status: 200; text\/html, .* converted to text$/),
    ]);
    expect(out).toContain('Version 2.0');
    expect(out).toContain(`The new engine is described here [http://127.0.0.1:${port}/engine.html].`);
    expect(out).toContain(`Docs [http://127.0.0.1:${port}/docs/]`);
    expect(out).toMatch(/Key +Value\nspeed +fast/);
    expect(out).toContain(' * first item\n * second item');
    expect(out).not.toMatch(/tracking|color:red|<p>|logo/);
  });

  it('says where a redirect led', async () => {
    expect((await allowPrivate(local('/to-page'))).split('\n')[0]).toBe(`URL: ${local('/page.html')} (redirected from ${local('/to-page')})`);
    expect(await refusal(allowPrivate(local('/loop')))).toMatch(/stopped after 5 redirects \(the next was to \/loop\)/);
  });

  it('returns other text as it is, decoded by its charset or gzip; refuses binary content', async () => {
    expect(await allowPrivate(local('/json'))).toBe(`URL: ${local('/json')}\nStatus: 200; application/json, 25 B\n\n{"ok":true,"items":[1,2]}`);
    expect(await allowPrivate(local('/latin1'))).toMatch(/\n\ncafé$/);
    expect(await allowPrivate(local('/gzip'))).toMatch(/\n\nunzipped text$/);
    expect(await allowPrivate(local('/untyped-html'))).toMatch(/converted to text\n\nsniffed$/);
    expect(await allowPrivate(local('/empty'))).toMatch(/\n\n\(empty\)$/);
    expect(await refusal(allowPrivate(local('/png')))).toBe(
      `${local('/png')} is image/png (68.4 KB), not text; web_fetch returns HTML, plain text, JSON, XML and other text only`,
    );
    expect(await refusal(allowPrivate(local('/untyped-binary')))).toMatch(/is binary content \(no content type/);
  });

  it('gives an HTTP error back as its status and the start of its body', async () => {
    expect(await refusal(allowPrivate(local('/404')))).toBe(`HTTP 404 Not Found from ${local('/404')}: No such page\n\nTry /docs.`);
    expect(await refusal(allowPrivate(local('/503')))).toBe(
      `HTTP 503 Service Unavailable from ${local('/503')} (a server error; it may be temporary): {"error":"overloaded"}`,
    );
    expect(await refusal(byDefault('ftp://example.com/x'))).toMatch(/^ftp: URLs are not fetched/);
    expect(await refusal(byDefault('not a url'))).toMatch(/^not a URL: "not a url"/);
    expect(await refusal(byDefault('http://no-such-host.test/'))).toMatch(/could not be resolved \(ENOTFOUND\)/);
  });

  it('finds no title in a page of unclosed <title tags, in linear time', () => {
    // htmlTitle reads 64 KB at most, where a quadratic title pattern took about 1 s: 40 such pages took about 40 s.
    const page = '<title'.repeat(20_000) + '<title>past the first 64 KB</title>';
    for (let i = 0; i < 40; i++) expect(htmlTitle(page)).toBeUndefined();
    expect(htmlTitle('<html><head><TITLE lang="en">A &amp; B</TITLE></head>')).toBe('A & B');
  }, 20_000);
});

describe('caps', () => {
  it('stops reading at the size cap (counted after decompression) and says so', async () => {
    beats = 0;
    const out = await fetcher({ allowPrivate: true, maxBytes: 100_000 })(local('/big'));
    expect(beats).toBeGreaterThan(0); // a long read keeps the activity alive
    await new Promise((r) => setTimeout(r, 100));
    // Bytes, not a stopwatch: the connection closed with a small part of the 50 MB stream sent.
    expect(bigSent).toBeLessThan(10 * 1024 * 1024);
    const body = out.split('\n\n')[1]!;
    expect(out).toMatch(/^Status: 200; text\/plain, 97\.7 KB read$/m);
    expect(out).toMatch(/\[stopped reading at 97\.7 KB; the rest is not shown\]$/);
    expect(body.length).toBeLessThanOrEqual(100_000 + 100);
    // The default cap, 2 MB, on the same 50 MB stream.
    const dflt = await allowPrivate(local('/big'));
    expect(dflt).toMatch(/2\.0 MB read/);
    await new Promise((r) => setTimeout(r, 100));
    expect(bigSent).toBeLessThan(20 * 1024 * 1024); // the server was not drained to the end
  });

  it('gives up at the time cap: a server that never answers, one that stalls mid-body', async () => {
    const quick = fetcher({ allowPrivate: true, timeoutMs: 500 });
    // The cap's own word, not a stopwatch: unstopped, neither ever ends (/slow stalls after its first bytes).
    for (const p of ['/hang', '/slow']) {
      expect(await refusal(quick(local(p)))).toBe(`${local(p)}: no complete answer within 0.5 s (timed out)`);
    }
  });

  it('a cancelled call rejects with the cancellation, not a result', async () => {
    const abort = new AbortController();
    const p = allowPrivate(local('/hang'), abort.signal);
    setTimeout(() => abort.abort(new Error('interrupted')), 100);
    const err = await p.catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ToolError);
  });
});
