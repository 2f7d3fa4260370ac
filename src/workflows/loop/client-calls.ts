// A tool round in which the model called the client's tools (src/shared/client-tools.ts): the agent's own calls of
// the same step run as always, then the turn waits — a durable condition, in history, no process memory — for
// the client's `toolResults` update with one result per client call. The round comes back as any round does:
// one tool message per call, in the model's order, so the turn appends it and the loop goes on. A stop or the
// idle timeout ends the wait; each unanswered call then gets a result that says so.
import { condition, isCancellation } from '@temporalio/workflow';
import { canonicalJson } from '../../shared/digest';
import { clientResultMissing } from '../../shared/texts';
import type { ToolCall } from '../../shared/wire';
import type { Conversation } from '../state/conversation-state';
import { runToolCalls } from './run-tools';
import type { RanCall, ToolRound } from './step-result';

/** Runs one message's calls: the agent's, and the client's through the client. */
export function runRound(c: Conversation, calls: ToolCall[], text: string | null): Promise<ToolRound> {
  const client = new Set(c.clientTools.names);
  const theirs = calls.filter((k) => client.has(k.function.name));
  // The agent's calls alone (every step without a `hermes serve` client's tools): no async wrapper around them.
  return theirs.length ? mixedRound(c, calls, text, client, theirs) : runToolCalls(c, calls);
}

async function mixedRound(c: Conversation, calls: ToolCall[], text: string | null, client: Set<string>, theirs: ToolCall[]): Promise<ToolRound> {
  const mine = calls.filter((k) => !client.has(k.function.name));
  const agent = mine.length ? await runToolCalls(c, mine) : undefined;
  const results = await clientResults(c, theirs, text);
  // The agent's round has one tool message per call, in the order of `mine`.
  const byId = new Map(mine.map((k, i) => [k.id, { message: agent!.messages[i]!, valid: agent!.valid[i]! }]));
  return {
    messages: calls.map((k) => byId.get(k.id)?.message ?? { role: 'tool' as const, tool_call_id: k.id, content: results.get(k.id)! }),
    valid: calls.map((k) => byId.get(k.id)?.valid ?? true),
    ran: [...(agent?.ran ?? []), ...theirs.filter((k) => results.has(k.id)).map((k) => ranCall(k, results.get(k.id)!))],
    lastName: calls[calls.length - 1]!.function.name,
    found: agent?.found ?? [],
    wroteMemory: agent?.wroteMemory ?? false,
  };
}

/** The client's results by call id: what it sent, or why there is none. */
async function clientResults(c: Conversation, calls: ToolCall[], text: string | null): Promise<Map<string, string>> {
  const missing = (why: string) => new Map(calls.map((k) => [k.id, clientResultMissing(why)]));
  // A stop during the agent's calls of this step: the client is not asked.
  if (c.stop.reason) return missing(`not asked: cancelled ${c.stop.cause()}`);
  const asked = calls.map((k) => ({ id: k.id, name: k.function.name, arguments: k.function.arguments }));
  const names = [...new Set(asked.map((k) => k.name))].join(', ');
  c.clientTools.pause(c.meter.turn, text, asked, { usage: c.meter.usage, iteration: c.meter.iteration });
  c.setStatus('waiting', 'tool_results');
  c.publish({
    type: 'waiting',
    for: 'tool_results',
    callId: asked.map((k) => k.id).join(','),
    question: `the client's results of ${names}`,
    answerWith: 'the next request of this chat, its messages ending with one role "tool" message per call',
  });
  const since = Date.now();
  const timeoutSec = c.limits.idleTimeoutSec;
  try {
    const came = await condition(() => c.clientTools.results !== undefined, timeoutSec * 1000, {
      summary: `waiting for the client's results of ${names}`,
    });
    const got = c.clientTools.results;
    if (!came || !got) {
      c.note('tools', `no results of the client's calls (${names}) within ${timeoutSec} s`);
      return missing(`none came within ${timeoutSec} s`);
    }
    for (const k of asked) {
      const content = got.get(k.id)!;
      c.record({ kind: 'tool', name: k.name, summary: `client: ${content.split('\n')[0]!.slice(0, 200)}`, ok: true });
      c.publish({
        type: 'tool.finished',
        callId: k.id,
        name: k.name,
        summary: 'result from the client',
        outcome: 'ok',
        durationMs: Date.now() - since,
      });
    }
    return new Map(got);
  } catch (err) {
    // Cut by a stop (interrupt, time budget, cancel): the next check of the turn applies it.
    if (isCancellation(err)) return missing(`cancelled ${c.stop.cause()} while waiting`);
    throw err;
  } finally {
    c.clientTools.settle();
    c.setStatus('running');
  }
}

function ranCall(k: ToolCall, content: string): RanCall {
  let args: unknown = k.function.arguments;
  try {
    args = JSON.parse(k.function.arguments);
  } catch {
    // Not JSON: compared as written.
  }
  return { name: k.function.name, argsKey: canonicalJson(args), content, label: `${k.function.name} (client)` };
}
