// A local HTTP receiver for webhook tests: it records every request and answers with scripted statuses.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: any;
  /** What the receiver answered. */
  status: number;
}

export interface Receiver {
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

/** An HTTP receiver answering its n-th request with statuses[n] (the last one from then on). */
export async function startReceiver(statuses: Array<number | { status: number; headers?: Record<string, string> }> = [200]): Promise<Receiver> {
  const requests: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const planned = statuses[Math.min(requests.length, statuses.length - 1)]!;
      const { status, headers } = typeof planned === 'number' ? { status: planned, headers: {} } : planned;
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      requests.push({ headers: req.headers, body, status });
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(status >= 300 ? `receiver says ${status}` : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook/secret-path`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL nobody listens on: a port that was free a moment ago. */
export async function closedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

/** A delivered result's body: `fields`, the times and latency (see expectTimes) and the idempotency key. */
export function deliveredBody(fields: Record<string, unknown>, idempotencyKey: string): Record<string, unknown> {
  return { ...fields, startedAt: expect.any(String), finishedAt: expect.any(String), latencyMs: expect.any(Number), idempotencyKey };
}

/** The body's times are ISO 8601 (workflow time), from t0 on, in order, and latencyMs is their difference. */
export function expectTimes(body: { startedAt: string; finishedAt: string; latencyMs: number }, t0: number): void {
  const started = Date.parse(body.startedAt);
  const finished = Date.parse(body.finishedAt);
  expect(new Date(started).toISOString()).toBe(body.startedAt);
  expect(started).toBeGreaterThanOrEqual(t0 - 1_000);
  expect(finished).toBeGreaterThanOrEqual(started);
  expect(finished).toBeLessThanOrEqual(Date.now());
  expect(body.latencyMs).toBe(finished - started);
}
