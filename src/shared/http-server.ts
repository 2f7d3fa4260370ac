// What the project's own HTTP servers (hermes serve, the codec server) share: listening on a host and port (an
// IPv6 address bracketed in the URL) with a close that also ends kept-alive connections, and the bearer check.
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
