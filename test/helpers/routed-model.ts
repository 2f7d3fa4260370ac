// Scripts for conversations that share one mock model endpoint (a parent and its sub-agents): each request is
// answered from the queue of the conversation it belongs to, recognised by its first user message (a
// sub-agent's first user message is its goal). Requests arrive in any order when sub-agents run at once.
import type { RecordedRequest, Reply } from './mock-model';

export interface Routes {
  /** One reply function per scripted reply, to hand to the mock model in any order. */
  script: Reply[];
  /** Requests that reached each route, in arrival order. */
  requests: Record<string, RecordedRequest[]>;
  /** Scripted replies not used yet, per route. */
  left(): Record<string, number>;
}

/** The first user message of a request: which conversation sent it. */
export function firstUser(req: RecordedRequest): string {
  const m = req.messages.find((x: { role: string }) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : '';
}

/** `routes`: a key contained in the conversation's first user message → that conversation's replies, in order. */
export function routed(routes: Record<string, Reply[]>): Routes {
  const queues = Object.fromEntries(Object.entries(routes).map(([k, v]) => [k, [...v]]));
  const requests: Record<string, RecordedRequest[]> = Object.fromEntries(Object.keys(routes).map((k) => [k, []]));
  // Longest key first, so "task 10" is not taken for "task 1".
  const keys = Object.keys(routes).sort((a, b) => b.length - a.length);
  const reply: Reply = (req) => {
    const text = firstUser(req);
    const key = keys.find((k) => text.includes(k));
    if (!key) throw new Error(`no route for a conversation starting "${text.slice(0, 80)}"`);
    requests[key]!.push(req);
    const next = queues[key]!.shift();
    if (!next) throw new Error(`route "${key}" has no reply left for request #${req.n}`);
    return next;
  };
  const total = Object.values(routes).reduce((n, r) => n + r.length, 0);
  return {
    script: Array.from({ length: total }, () => reply),
    requests,
    left: () => Object.fromEntries(Object.entries(queues).map(([k, q]) => [k, q.length])),
  };
}
