// What is wrong with a Temporal address, told in milliseconds instead of after gRPC's own retries: nothing listens,
// the name does not resolve, or — without TLS configured — what answers there is a web server, not gRPC (often the
// Web UI's port, 8233 on a dev server, given for the frontend's 7233). Anything the probe does not recognise
// (silence, a closed connection, bytes that are not text) is left to gRPC, so no server is refused here by guess.
import * as net from 'node:net';

/** HTTP/2's client connection preface: a gRPC server answers it with a SETTINGS frame. */
const H2_PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

/** Why host:port cannot be a plaintext (or, with `tls`, any) gRPC server, or undefined when it may be one. */
export async function addressProblem(address: string, opts: { tls: boolean; timeoutMs?: number; answerMs?: number }): Promise<string | undefined> {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address.replace(/^[a-z]+:\/\//i, ''));
  if (!m) return undefined; // not host:port: let gRPC say what it makes of it
  const [, host, port] = m;
  const timeoutMs = opts.timeoutMs ?? 3_000;
  return new Promise((resolve) => {
    const socket = net.connect({ host: host!, port: Number(port) });
    let answerTimer: NodeJS.Timeout | undefined;
    const done = (problem: string | undefined) => {
      clearTimeout(answerTimer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs / 1000} s (a firewall, or the wrong host)`));
    socket.once('connect', () => {
      socket.setTimeout(0);
      if (opts.tls) return done(undefined);
      // A gRPC server may wait for more than the preface before it says anything: silence is not a problem.
      answerTimer = setTimeout(() => done(undefined), opts.answerMs ?? 500);
      socket.once('data', (d: Buffer) => done(answerProblem(d)));
      socket.once('end', () => done(undefined));
      socket.write(H2_PREFACE);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? '';
      done(
        code === 'ECONNREFUSED'
          ? 'connection refused (nothing listens on that port)'
          : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
            ? `the host name ${host} does not resolve`
            : // A reset after the preface: not a problem this probe can name.
              code === 'ECONNRESET' || code === 'EPIPE'
              ? undefined
              : `${code || 'error'}: ${err.message}`,
      );
    });
  });
}

/** What the first bytes a server sent back to the HTTP/2 preface say it is, when that is clearly not gRPC. */
function answerProblem(d: Buffer): string | undefined {
  // An HTTP/2 frame header (a SETTINGS or GOAWAY frame on stream 0): an HTTP/2 server, maybe gRPC.
  if (d.length >= 9 && d[3]! <= 0x09 && (d.readUInt32BE(5) & 0x7fffffff) === 0) return undefined;
  const text = d.subarray(0, 200).toString('latin1');
  if (!/^[\t\n\r\x20-\x7e]+$/.test(text)) return undefined;
  const first = text.split(/\r?\n/).find((l) => l.trim());
  if (!first) return undefined; // blank lines say nothing about what answers there
  return (
    `a web server or another text protocol answers there, not a gRPC server (it said "${first.trim().slice(0, 60)}"): ` +
    "is it the Temporal Web UI's port (8233 on a dev server) instead of the frontend's (7233)?"
  );
}
