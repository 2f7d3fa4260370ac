// Probing a local Temporal frontend: is the port open, does it answer gRPC getSystemInfo.
import * as net from 'node:net';
import { Connection } from '@temporalio/client';

export function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function tcpOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** One attempt: a Connection whose getSystemInfo answered, or undefined. */
async function connectOnce(address: string, timeoutMs: number): Promise<Connection | undefined> {
  const conn = Connection.lazy({
    address,
    connectTimeout: timeoutMs,
    // a local server: never go through an HTTP proxy from the environment
    channelArgs: { 'grpc.enable_http_proxy': 0 },
  });
  try {
    await conn.ensureConnected();
    await conn.workflowService.getSystemInfo({});
    return conn;
  } catch {
    await conn.close().catch(() => {});
    return undefined;
  }
}

/** A Connection to a Temporal server answering on host:port within timeoutMs, or undefined. */
export async function answersTemporal(host: string, port: number, timeoutMs: number): Promise<Connection | undefined> {
  const deadline = Date.now() + timeoutMs;
  const address = hostPort(host, port);
  for (;;) {
    if (await tcpOpen(host, port)) {
      const conn = await connectOnce(address, Math.max(500, Math.min(3000, deadline - Date.now())));
      if (conn) return conn;
    }
    if (Date.now() >= deadline) return undefined;
    await sleep(200);
  }
}

/**
 * Polls a server that is starting until it answers (a Connection), `exited()` says it is gone ('exited'), or
 * the deadline passes ('timeout').
 */
export async function waitUntilAnswering(
  ip: string,
  port: number,
  deadline: number,
  exited: () => boolean,
): Promise<Connection | 'exited' | 'timeout'> {
  const address = hostPort(ip, port);
  for (;;) {
    if (exited()) return 'exited';
    if (Date.now() >= deadline) return 'timeout';
    if (await tcpOpen(ip, port, 300)) {
      const conn = await connectOnce(address, Math.max(500, Math.min(2000, deadline - Date.now())));
      if (conn) return conn;
    }
    await sleep(100);
  }
}
