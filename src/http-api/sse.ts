// Server-sent events as the OpenAI API streams them: `data: <json>\n\n` per chunk, `data: [DONE]` at the end,
// comment lines (`: keep-alive`) while nothing happens so proxies do not cut an idle stream.
import type { ServerResponse } from 'node:http';

const KEEPALIVE_MS = 15_000;

export class SseWriter {
  private readonly timer: NodeJS.Timeout;
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string> = {},
  ) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...headers,
    });
    res.flushHeaders();
    this.timer = setInterval(() => this.write(': keep-alive\n\n'), KEEPALIVE_MS);
    this.timer.unref();
    res.once('close', () => this.stop());
  }

  /** False once the client has gone (or the stream ended). */
  get open(): boolean {
    return !this.ended && !this.res.destroyed && this.res.writable;
  }

  /** One event: `data: <json>`, with an `id:` line when given (EventSource sends it back as Last-Event-ID). */
  send(data: unknown, id?: number | string): void {
    this.write(`${id !== undefined ? `id: ${id}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }

  done(): void {
    this.write('data: [DONE]\n\n');
    this.end();
  }

  end(): void {
    if (this.ended) return;
    this.stop();
    this.res.end();
  }

  private write(text: string): void {
    if (this.open) this.res.write(text);
  }

  private stop(): void {
    this.ended = true;
    clearInterval(this.timer);
  }
}
