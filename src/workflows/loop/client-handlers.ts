// The message side of client tools (src/shared/client-tools.ts): what a `send` offers is checked by its validator
// (names clear of the agent's tools, no send while calls await results), and the `toolResults` update hands the
// client's results to the waiting turn (client-calls.ts) and returns what the turn does next — its answer, or the
// next client calls — with the usage of that part of the turn.
import { condition, setHandler } from '@temporalio/workflow';
import {
  awaitingResults,
  sendOfferSchema,
  toolResultsSchema,
  type ClientOffer,
  type ToolCallsPause,
  type TurnReply,
} from '../../shared/client-tools';
import { NOTHING_PENDING, toolResultsUpdate } from '../../shared/messages';
import { parseArgs } from '../../shared/contract';
import type { Conversation } from '../state/conversation-state';
import { rejecting } from '../engine/validators';
import { subUsage } from '../rules/usage';

/** The offer of a `send`'s arguments, checked against the conversation; throws naming the field. */
export function checkedSendOffer(c: Conversation, raw: unknown): ClientOffer {
  const offer = parseArgs(sendOfferSchema(), raw, 'message: the client tools');
  const p = c.clientTools.pending;
  if (p) throw new Error(awaitingResults(p.calls));
  checkOffer(c, offer);
  return offer;
}

/** A send's turn: its result, or the client calls it waits on; undefined while neither has come. */
export function sendReply(c: Conversation, ticket: number): TurnReply | undefined {
  return c.chat.resultOf(ticket) ?? c.clientTools.pauseOf(ticket);
}

/** Client tools must not take the name of one of the agent's tools: a call by that name would be ambiguous. */
function checkOffer(c: Conversation, offer: ClientOffer): void {
  const names = (offer.tools ?? []).map((t) => t.name);
  const agent = new Set([...c.tools, ...c.callableTools]);
  names.forEach((n, i) => {
    if (agent.has(n)) throw new Error(`tools[${i}]: "${n}" is the name of one of the agent's own tools: give the client's tool another name`);
    if (names.indexOf(n) !== i) throw new Error(`tools[${i}]: "${n}" is offered twice`);
  });
  const choice = offer.toolChoice;
  if (choice && choice !== 'required' && !names.includes(choice.name))
    throw new Error(`toolChoice: "${choice.name}" is not one of the offered client tools`);
}

export function registerClientToolHandlers(c: Conversation): void {
  setHandler(
    toolResultsUpdate,
    async (raw) => {
      const args = toolResultsSchema().parse(raw);
      const turn = c.meter.turn;
      // Counted from here: this request's part of the turn (the turn's own result counts all of it).
      const usageBefore = c.meter.usage;
      const doneBefore = c.meter.turnIterations;
      const wait = c.clientTools.deliver(args, { usage: usageBefore, iteration: c.meter.iteration });
      let pause: ToolCallsPause | undefined;
      await condition(() => c.chat.resultOf(turn) !== undefined || c.chat.ended || (pause = c.clientTools.pauseAfter(wait)) !== undefined);
      const result = c.chat.resultOf(turn);
      if (result) return { ...result, part: { usage: subUsage(c.meter.usage, usageBefore), iterations: result.iterations - doneBefore } };
      if (pause) return pause;
      const usage = c.meter.usage;
      return {
        turn,
        status: 'cancelled',
        answer: '',
        reason: 'conversation ended before the turn went on',
        iterations: 0,
        usage,
        part: { usage, iterations: 0 },
      };
    },
    {
      validator: rejecting((raw) => {
        if (c.input.mode !== 'chat') throw new Error('toolResults needs a conversation started in chat mode');
        if (c.chat.ended) throw new Error(NOTHING_PENDING.send);
        const args = parseArgs(toolResultsSchema(), raw, 'tool results: expected {"results": [{"callId": "...", "content": "..."}]}');
        const p = c.clientTools.pending;
        if (!p || c.clientTools.results) throw new Error(NOTHING_PENDING.toolResults);
        const given = args.results.map((r) => r.callId);
        const awaited = new Set(p.calls.map((k) => k.id));
        const unknown = given.filter((id, i) => !awaited.has(id) || given.indexOf(id) !== i);
        if (unknown.length) throw new Error(`unknown or repeated tool call ids ${unknown.join(', ')}: ${awaitingResults(p.calls)}`);
        const missing = p.calls.filter((k) => !given.includes(k.id));
        if (missing.length) throw new Error(`results missing for tool calls ${missing.map((k) => k.id).join(', ')}: ${awaitingResults(p.calls)}`);
        checkOffer(c, args);
      }),
      description:
        'Chat mode: the results of the client tool calls a turn waits on: { results: [{ callId, content }], tools?, toolChoice?, responseFormat? }',
    },
  );
}
