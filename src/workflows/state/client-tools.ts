// The client's tools in a chat (src/shared/client-tools.ts): the offer each `send` made for its turn, the offer of
// the turn under way (a `toolResults` update replaces it), the client calls the turn waits on and the results
// that came for them. Usage and iterations are marked where a pause's count starts (the turn's start, the last
// results), so each request is told what its own part of the turn used.
import { z } from 'zod';
import {
  answerFormatSchema,
  clientCallSchema,
  clientToolSchema,
  toolCallsPauseSchema,
  toolChoiceSchema,
  type ClientCall,
  type ClientOffer,
  type ToolCallsPause,
  type ToolResultsArgs,
} from '../../shared/client-tools';
import { usageSchema, type Usage } from '../../shared/contract';
import { subUsage, ZERO_USAGE } from '../rules/usage';

function offerSchema() {
  return z.object({
    tools: z.array(clientToolSchema()).optional(),
    toolChoice: toolChoiceSchema().optional(),
    responseFormat: answerFormatSchema().optional(),
  });
}

export function clientToolsCarry() {
  return z.object({
    /** Offers of queued messages, by the turn they will have. */
    queued: z.array(z.object({ turn: z.number().int(), offer: offerSchema() })),
    current: offerSchema().optional(),
    /** Pauses so far: each one's number. */
    waits: z.number().int(),
    pending: z.object({ wait: z.number().int(), turn: z.number().int(), calls: z.array(clientCallSchema()) }).optional(),
    lastPause: toolCallsPauseSchema().extend({ wait: z.number().int() }).optional(),
    mark: z.object({ usage: usageSchema(), iteration: z.number().int() }),
  });
}
export type ClientToolsCarry = z.infer<ReturnType<typeof clientToolsCarry>>;

interface Pending {
  wait: number;
  turn: number;
  calls: ClientCall[];
}

export class ClientTools {
  #queued: Array<{ turn: number; offer: ClientOffer }>;
  #current: ClientOffer | undefined;
  #waits: number;
  #pending: Pending | undefined;
  #results: Map<string, string> | undefined;
  #lastPause: (ToolCallsPause & { wait: number }) | undefined;
  #mark: { usage: Usage; iteration: number };

  constructor(carried: ClientToolsCarry | undefined) {
    this.#queued = carried?.queued ?? [];
    this.#current = carried?.current;
    this.#waits = carried?.waits ?? 0;
    this.#pending = carried?.pending;
    this.#lastPause = carried?.lastPause;
    this.#mark = carried?.mark ?? { usage: ZERO_USAGE, iteration: 0 };
  }

  /** Nothing to carry while no client ever offered anything: a chat without client tools carries what it did before. */
  carry(): ClientToolsCarry | undefined {
    if (!this.#waits && !this.#queued.length && !this.#current) return undefined;
    return {
      queued: this.#queued,
      ...(this.#current ? { current: this.#current } : {}),
      waits: this.#waits,
      ...(this.#pending ? { pending: this.#pending } : {}),
      ...(this.#lastPause ? { lastPause: this.#lastPause } : {}),
      mark: this.#mark,
    };
  }

  /** A `send` offered this for the turn its message will have. */
  offerFor(turn: number, offer: ClientOffer): void {
    if (offer.tools?.length || offer.toolChoice || offer.responseFormat) this.#queued.push({ turn, offer });
  }

  /** A turn begins: its message's offer (or none) is the current one. */
  startTurn(turn: number, usage: Usage, iteration: number): void {
    this.#current = this.#queued.find((q) => q.turn === turn)?.offer;
    this.#queued = this.#queued.filter((q) => q.turn > turn);
    this.#mark = { usage, iteration };
  }

  /** The turn ended: its offer and any wait with it. */
  endTurn(): void {
    this.#current = undefined;
    this.#pending = undefined;
    this.#results = undefined;
  }

  get offer(): ClientOffer | undefined {
    return this.#current;
  }
  /** The names of the client's tools the current turn offers. */
  get names(): string[] {
    return (this.#current?.tools ?? []).map((t) => t.name);
  }
  get pending(): Pending | undefined {
    return this.#pending;
  }

  /** The turn waits for the client's results of these calls; what `send` or `toolResults` returns for it. */
  pause(turn: number, text: string | null, calls: ClientCall[], now: { usage: Usage; iteration: number }): void {
    this.#waits += 1;
    this.#pending = { wait: this.#waits, turn, calls };
    this.#results = undefined;
    this.#lastPause = {
      wait: this.#waits,
      turn,
      status: 'tool_calls',
      text,
      toolCalls: calls,
      iterations: now.iteration - this.#mark.iteration,
      usage: subUsage(now.usage, this.#mark.usage),
    };
  }

  /** The pause of turn `turn`, once there is one (for the `send` of that turn). */
  pauseOf(turn: number): ToolCallsPause | undefined {
    return this.#lastPause?.turn === turn ? withoutWait(this.#lastPause) : undefined;
  }
  /** A pause after wait `wait` (for the `toolResults` that answered it). */
  pauseAfter(wait: number): ToolCallsPause | undefined {
    return this.#lastPause && this.#lastPause.wait > wait ? withoutWait(this.#lastPause) : undefined;
  }

  /** The `toolResults` update (its validator checked the ids): the results, and the offer for the rest of the turn. */
  deliver(args: ToolResultsArgs, now: { usage: Usage; iteration: number }): number {
    const wait = this.#pending!.wait;
    this.#results = new Map(args.results.map((r) => [r.callId, r.content]));
    const { results: _results, ...offer } = args;
    this.#current = offer;
    this.#mark = now;
    return wait;
  }

  /** The results, once they came (the wait ends). */
  get results(): ReadonlyMap<string, string> | undefined {
    return this.#results;
  }
  /** The wait is over (results, a timeout or a stop): the calls no longer await anything. */
  settle(): void {
    this.#pending = undefined;
    this.#results = undefined;
  }
}

function withoutWait(p: ToolCallsPause & { wait: number }): ToolCallsPause {
  const { wait: _wait, ...pause } = p;
  return pause;
}
