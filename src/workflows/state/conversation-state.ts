// One conversation run: its checked input, and its state split by concern — each a class with private fields
// and intent methods, in a module of its own: the transcript (transcript.ts, the only writer of the messages),
// stop control, the human gate, the status board, the meter (budgets), the loop guards (loop-guards.ts), the
// chat mailbox, the model choice, the todo list, compression's bookkeeping, the sub-agent ledger (parent side)
// and the report counters (child side). This class composes them and offers the intents that span several.
// It imports nothing of the loop itself, and nothing it imports imports it, so imports flow one way into it.
import type {
  ChildView,
  ConversationInput,
  ConversationResult,
  ConversationState,
  Delegation,
  InterruptArgs,
  Limits,
  PendingApproval,
  RunStatus,
  StepRecord,
} from '../../shared/contract';
import type { StepEvent } from '../../shared/events';
import type { ChildProgress, ExternalToolSpec, ToolList } from '../../shared/wire';
import type { CarriedState } from './carried';
import { CARRIED_VERSION } from './carried';
import { ChatState } from './chat-state';
import { ClientTools } from './client-tools';
import type { ClientOffer } from '../../shared/client-tools';
import { CompressionState } from './compression-state';
import { EventLog } from './event-log';
import { logEvent } from '../engine/observe';
import { HumanGate } from './human-gate';
import { Meter } from './meter';
import { ModelChoice } from './model-choice';
import type { TurnOutcome } from '../loop/turn-outcome';
import { StatusBoard } from './status-board';
import { StopControl } from './stop-control';
import { LoopGuards } from './loop-guards';
import { ParentReports, SubagentLedger } from '../subagents/ledger';
import { TodoList } from './todo';
import { ToolView } from '../rules/tool-view';
import { Transcript } from './transcript';
import type { BudgetInput } from '../rules/budget';
import { detailsText } from './details';

/** A conversation's input once checked: limits complete, tools resolved. */
export interface RunConfig {
  input: ConversationInput & { limits: Limits; delegation?: Required<Delegation> };
  tools: string[];
  /** The worker's catalog tools this conversation recorded at its start (src/workflows/loop/tool-list.ts). */
  toolList?: ToolList;
}

export class Conversation {
  readonly input: RunConfig['input'];
  readonly limits: Limits;
  readonly transcript: Transcript;
  readonly stop = new StopControl();
  readonly human: HumanGate;
  readonly board: StatusBoard;
  readonly meter: Meter;
  readonly guards: LoopGuards;
  readonly chat: ChatState;
  /** The client's tools of a chat turn and the calls it waits on (client-tools.ts). */
  readonly clientTools: ClientTools;
  readonly model: ModelChoice;
  readonly todo: TodoList;
  readonly compression: CompressionState;
  readonly events: EventLog;
  /** Which tools the model is shown (all, or the core ones and what tool_search found). */
  readonly toolView: ToolView;
  readonly children = new SubagentLedger();
  readonly reports = new ParentReports();
  #tools: string[];
  #toolList: ToolList | undefined;

  constructor({ input, tools, toolList }: RunConfig, carried?: CarriedState) {
    this.input = input;
    this.limits = input.limits;
    this.#tools = tools;
    this.#toolList = carried?.toolList ?? toolList;
    const hasPrompt = Boolean(input.prompt?.trim());
    this.transcript = new Transcript(carried?.transcript, input.prompt);
    this.meter = new Meter(carried?.meter, hasPrompt);
    this.guards = new LoopGuards(carried?.guards);
    this.human = new HumanGate(carried?.human);
    this.chat = new ChatState(carried?.chat, hasPrompt);
    this.clientTools = new ClientTools(carried?.clientTools);
    this.model = new ModelChoice(carried?.model, input.model);
    this.todo = new TodoList(carried?.todo);
    this.compression = new CompressionState(carried?.compression);
    this.events = new EventLog(carried?.events);
    this.toolView = new ToolView(carried?.toolView);
    this.board = new StatusBoard(carried?.status, {
      quiet: input.searchAttributes === false,
      details: () => detailsText(this),
      progress: () => ({ model: this.model.profile ?? 'default', iteration: this.meter.iteration }),
    });
    this.board.publish();
  }

  get tools(): readonly string[] {
    return this.#tools;
  }
  /** The tools the model is shown at the next step (tool-view.ts). */
  get shownTools(): string[] {
    return this.toolView.shown(this.#tools, this.input.tools);
  }
  /** The tools a call may name: the offered ones, and tool_search while some are not shown. */
  get callableTools(): string[] {
    return this.toolView.callable(this.#tools, this.input.tools);
  }
  get toolList(): ToolList | undefined {
    return this.#toolList;
  }

  /** A fresh run's catalog tools, fetched after the start checks (tool-list.ts): before the system prompt names them. */
  useCatalog(tools: string[], list: ToolList): void {
    this.#tools = tools;
    this.#toolList = list;
  }

  /** A catalog tool (module, HTTP, MCP) this conversation recorded, by name. */
  catalogTool(name: string): ExternalToolSpec | undefined {
    return this.#toolList?.tools.find((t) => t.name === name);
  }

  /** The state handed to the next run by continue-as-new. */
  carry(): CarriedState {
    return {
      version: CARRIED_VERSION,
      ...{ transcript: this.transcript.carry(), meter: this.meter.carry(), guards: this.guards.carry(), human: this.human.carry() },
      ...{ status: this.board.carry(), chat: this.chat.carry(), model: this.model.carry(), todo: this.todo.carry() },
      compression: this.compression.carry(),
      events: this.events.carry(),
      ...(this.#toolList ? { toolList: this.#toolList } : {}),
      ...(this.toolView.carry() ? { toolView: this.toolView.carry() } : {}),
      ...(this.clientTools.carry() ? { clientTools: this.clientTools.carry() } : {}),
    };
  }

  /** How deep this conversation is among sub-agents: 0 for one a person or a schedule started. */
  get depth(): number {
    return this.input.parent?.depth ?? 0;
  }
  get status(): RunStatus {
    return this.board.status;
  }

  /** Chat: per-turn state starts over with each user message. */
  beginTurn(text: string): void {
    this.transcript.beginTurn(text);
    this.meter.newTurn();
    this.guards.newTurn();
    this.stop.newTurn();
    this.clientTools.startTurn(this.meter.turn, this.meter.usage, this.meter.iteration);
    this.publish({ type: 'turn.started', text }, undefined);
  }

  /** The `interrupt` signal. In an idle chat nothing runs: a message starts the next turn, a bare interrupt is moot. */
  interrupt(args: InterruptArgs): void {
    const message = args.message?.trim() ? args.message : undefined;
    if (this.input.mode === 'chat' && !this.chat.turnInProgress) {
      if (message && !this.chat.ended) this.chat.queue(message, this.meter.turn);
      return;
    }
    this.stop.interrupt({ ...(args.reason ? { reason: args.reason } : {}), ...(message ? { message } : {}) });
  }

  /**
   * The `send` update: queues the message with what the client offers its turn (a busy turn is interrupted under
   * busyPolicy interrupt); returns its turn.
   */
  send(text: string, offer: ClientOffer = {}): number {
    const ticket = this.chat.queue(text, this.meter.turn);
    this.clientTools.offerFor(ticket, offer);
    if (this.chat.turnInProgress && this.input.busyPolicy === 'interrupt') this.stop.interrupt({ reason: 'a new message arrived' });
    return ticket;
  }

  /** What the `state` query lists: this conversation's own pending approvals, then its sub-agents'. */
  pendingApprovals(): PendingApproval[] {
    return [...this.human.approvals, ...this.children.forwarded()];
  }

  budgetInput(): BudgetInput {
    return this.meter.budgetInput(this.limits, this.stop.timeUp);
  }

  /** A sub-agent's totals so far: what is new counts in this conversation's usage at once (budgets see it). */
  childReport(p: ChildProgress & { status: ChildView['status'] }, settle = false): void {
    const delta = this.children.report(p, settle);
    if (delta) this.meter.spend(delta);
  }

  finish(o: TurnOutcome): ConversationResult {
    const { status, answer, reason, error } = o;
    const outcome = { ...(reason ? { reason } : {}), ...(error ? { error } : {}) };
    this.publish({ type: 'status', status, ...outcome });
    this.board.end(status, outcome, answer);
    const { usage, modelCalls, toolCalls, runs, iteration } = this.meter;
    logEvent('end', `conversation ended: ${status}${reason ? ` (${reason})` : ''}`, {
      status,
      ...outcome,
      modelCalls,
      toolCalls,
      tokens: usage.totalTokens,
    });
    return { status, answer, ...outcome, usage, iterations: iteration, modelCalls, toolCalls, runs };
  }

  setStatus(status: RunStatus, waitingFor: ConversationState['waitingFor'] = null): void {
    if (status !== this.board.status) this.publish({ type: 'status', status });
    this.board.set(status, waitingFor);
  }

  record(step: Omit<StepRecord, 'step' | 'modelStep'>): void {
    this.board.record(step, this.meter.modelCalls);
  }

  /** A live event for watchers (the `events` query); `step`: the model step it belongs to, default the latest. */
  publish(ev: StepEvent, step: number | undefined = this.meter.modelCalls || undefined): void {
    this.events.publish(ev, { turn: this.meter.turn, ...(step !== undefined ? { step } : {}) });
  }

  /** A note in the state's steps, and a line in the worker's log (interrupts, approvals, compressions…). */
  note(name: string, summary: string): void {
    this.record({ kind: 'note', name, summary, ok: true });
    logEvent('note', summary, { note: name, modelStep: this.meter.modelCalls });
  }

  /**
   * Names the call in flight in the details until `done` settles, then hands its value to `then` (or its error to
   * `failed`, which rethrows or turns it into a value); a stop that cuts it is named by the interrupt's trace.
   */
  calling<T, R>(what: string, done: Promise<T>, then: (value: T) => R | Promise<R>, failed: (err: unknown) => R | Promise<R>): Promise<R> {
    this.board.inFlightNow(what);
    // One `then` that also runs the caller's code, not an async function awaiting `done` and its caller awaiting
    // that: each promise the workflow makes gets a stack trace from the SDK's promise hook, and this runs for
    // every model and tool call.
    return done.then(
      (value) => {
        this.board.inFlightDone(what);
        return then(value);
      },
      (err: unknown) => {
        this.stop.noteCut(what, err);
        this.board.inFlightDone(what);
        return failed(err);
      },
    );
  }
}
