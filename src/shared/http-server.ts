// What the project's own HTTP servers (hermes serve, the codec server) share: listening on a host and port (an
// IPv6 address bracketed in the URL) with a close that also ends kept-alive connections, the bearer check, and
// trimming a request path's trailing slashes.
import { timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningHttpServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export async function listen(server: Server, port: number, host: string): Promise<RunningHttpServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const name = bound.address.includes(':') ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${name}:${bound.port}`,
    port: bound.port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The Authorization header equals `expected` (e.g. "Bearer T"), compared in constant time. */
export function authorized(header: string | undefined, expected: Buffer): boolean {
  const got = Buffer.from(header ?? '');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/**
 * `s` without its trailing slashes: what `s.replace(/\/+$/, '')` gives ("/" → ""), in linear time. That regex
 * retries from every slash of a run, so a path of many slashes not at the end costs quadratic time per request.
 */
export function trimTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x2f) end--;
  return s.slice(0, end);
}
