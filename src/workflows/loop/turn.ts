// The loop of one turn, and its one seam: each step (model-step.ts, run-tools.ts) returns data; this module alone
// appends it to the transcript and evaluates the stop conditions (stop-conditions.ts) after every step. Between
// steps: interrupts, budget warnings, continue-as-new and compression.
import { CancelledFailure } from '@temporalio/workflow';
import { dueWarnings, exhausted } from '../rules/budget';
import { maybeCompress } from './compress';
import { continueConversationAsNew, shouldContinueAsNew } from './continue-as-new';
import { echoedInstructions } from '../rules/echo-check';
import type { Conversation } from '../state/conversation-state';
import { finalSummary, modelStep } from './model-step';
import { STOPPED, type Stopped, type TurnOutcome } from './turn-outcome';
import { droppedCallsNote, EMPTY_NUDGE, finalSummaryRequest, interruptedAnswer, loopWarning } from '../../shared/texts';
import { MAX_TOOL_CALLS_PER_REPLY } from '../../shared/wire';
import { runRound } from './client-calls';
import type { StepResult } from './step-result';
import { evaluateStop, type StopVerdict } from '../rules/stop-conditions';
import { inTurnSpan, logEvent } from '../engine/observe';
import { fileTurnSummary } from './search-summary';
import { traceOutcome } from '../engine/trace';

/** The note of a reply asked for once more, by why. */
const RECHECK_NOTES = {
  'repeated result': 'the reply only repeats a tool result: asked once more',
  'untooled answer': 'a small model answered before using any tool: asked once to check',
  'announced action': 'the reply announces an action without taking it: asked once to act or answer',
  'answer format': "the answer lacks the client's response_format: asked once more",
} as const;

/** One turn: model and tool steps until the model answers or something stops it (in its span, when traced). */
export function runTurn(c: Conversation): Promise<TurnOutcome> {
  const turn = c.meter.turn;
  logEvent('turn', `turn ${turn} started`, { turn, modelCalls: c.meter.modelCalls });
  const agent = c.input.parent ? 'hermes-subagent' : 'hermes';
  const outcome = (o: TurnOutcome) => ({ 'hermes.status': o.status, ...(o.reason ? { 'error.type': o.reason } : {}) });
  return inTurnSpan(c, { turn, agent }, () => turnSteps(c), outcome).then((o) => {
    logEvent('turn', `turn ${turn} ended: ${o.status}`, { turn, status: o.status, ...(o.reason ? { reason: o.reason } : {}) });
    return o;
  });
}

async function turnSteps(c: Conversation): Promise<TurnOutcome> {
  c.chat.turnStarted();
  c.setStatus('running');
  try {
    // A conversation-wide budget used up in an earlier turn: say so without spending more.
    const spent = exhausted(c.budgetInput());
    if (spent && c.meter.turnIterations === 0 && !spent.startsWith('iterations')) {
      return answered(c, { status: 'budget_exhausted', answer: `The conversation's budget is used up (${spent}).` });
    }
    // A stop (interrupt, time budget) ends a stretch of steps; the next stretch applies it in a fresh scope.
    for (;;) {
      const outcome = await c.stop.stoppable(() => steps(c));
      if (outcome !== STOPPED) return answered(c, outcome);
    }
  } finally {
    c.chat.turnFinished();
    c.clientTools.endTurn();
    // An interrupt that arrived too late for this turn (e.g. during the final summary call) must not hit the next
    // one; a redirect message it carried becomes the next chat message instead of being lost.
    const late = c.stop.dropLateInterrupt();
    if (late?.message && c.input.mode === 'chat') c.chat.queueFirst(late.message);
  }
}

/** The turn's outcome, told to watchers and filed for session search. */
function answered(c: Conversation, outcome: TurnOutcome): TurnOutcome {
  c.publish({ type: 'answer', text: outcome.answer, status: outcome.status });
  fileTurnSummary(c, outcome);
  return outcome;
}

/** Steps until the turn ends (an outcome) or a stop cuts this stretch (STOPPED). */
async function steps(c: Conversation): Promise<TurnOutcome | Stopped> {
  // A stretch begins (the first, or after a stop such as the time budget): the budgets may be used up already.
  let verdict = evaluateStop(c);
  for (;;) {
    if (verdict.stop) return stopTurn(c, verdict.stop);
    if (verdict.warnLooping) {
      c.transcript.append({ role: 'user', content: loopWarning(verdict.warnLooping) });
      c.note('repetition', `warned the model that it is looping on ${verdict.warnLooping}`);
    }
    if (c.stop.cancelRequested) throw new CancelledFailure('conversation cancelled');
    if (c.stop.stretchEnded()) return STOPPED;
    if (c.stop.interruptPending) {
      const stop = await takeInterrupt(c);
      if (stop) return stop;
    }
    for (const w of dueWarnings(c.budgetInput(), c.meter.warnedOf())) {
      c.meter.warn(w.kind);
      c.transcript.append({ role: 'user', content: w.text });
      c.note('budget', `warned the model: ${w.kind} at 80%`);
    }
    if (shouldContinueAsNew(c)) await continueConversationAsNew(c);
    const compressing = maybeCompress(c);
    if (compressing) await compressing;
    // A cut model step throws its cancellation out of the stretch (stoppable turns it into STOPPED); tool
    // calls cut short become results, and the next check ends the stretch.
    const reply = await modelStep(c);
    let step: StepResult;
    switch (reply.kind) {
      case 'answer':
        c.transcript.append(reply.message);
        return { status: 'completed', answer: reply.text };
      case 'fail':
        return { status: 'failed', answer: c.transcript.lastAssistantText(), reason: reply.reason, error: reply.error };
      case 'empty':
        verdict = evaluateStop(c, reply);
        c.record({ kind: 'model', name: 'empty', summary: `empty response (${c.guards.emptyStreak})`, ok: false });
        if (c.guards.emptyStreak === 1) c.transcript.append({ role: 'user', content: EMPTY_NUDGE });
        continue;
      case 'recheck':
        c.transcript.append(reply.message, { role: 'user', content: reply.nudge });
        c.note('model', RECHECK_NOTES[reply.why]);
        verdict = evaluateStop(c);
        continue;
      case 'unreadable':
        c.transcript.append(reply.message, { role: 'user', content: reply.correction });
        verdict = evaluateStop(c, reply);
        c.note(
          'model',
          reply.why === 'echo'
            ? `the reply repeats the runtime's instructions: not taken as the answer (${c.guards.invalidStreak} in a row)`
            : reply.why === 'made-up result'
              ? `the reply holds a made-up tool result: not taken as the answer (${c.guards.invalidStreak} in a row)`
              : `tool call written as text could not be read (${c.guards.invalidStreak} in a row)`,
        );
        continue;
      case 'tools': {
        c.transcript.append(reply.message);
        const round = await runRound(c, reply.calls, reply.message.content);
        if (reply.dropped) {
          const last = round.messages.at(-1)!;
          round.messages[round.messages.length - 1] = {
            ...last,
            content: `${last.content}\n\n${droppedCallsNote(reply.dropped, MAX_TOOL_CALLS_PER_REPLY)}`,
          };
          c.note('tools', `the reply held ${reply.calls.length + reply.dropped} tool calls: ran the first ${reply.calls.length}, the model was told`);
        }
        c.transcript.append(...round.messages);
        if (round.wroteMemory) c.chat.memoryChanged();
        const shown = c.toolView.reveal(round.found);
        if (shown.length) c.note('tools', `tool_search found ${shown.join(', ')}: shown from the next step on`);
        step = { kind: 'tools', valid: round.valid, ran: round.ran, lastName: round.lastName };
        break;
      }
      default: {
        const never: never = reply;
        throw new Error(`unhandled reply ${JSON.stringify(never)}`);
      }
    }
    verdict = evaluateStop(c, step);
  }
}

/** A stop condition holds: fail, or trace the forced stop and end with the model's summary of its progress. */
async function stopTurn(c: Conversation, stop: StopVerdict): Promise<TurnOutcome> {
  if (stop.kind === 'fail') return { status: 'failed', answer: c.transcript.lastAssistantText(), reason: stop.reason, error: stop.error };
  await traceOutcome(c.board, stop.trace);
  c.transcript.append({ role: 'user', content: finalSummaryRequest(stop.why, stop.detail) });
  const summary = await finalSummary(c);
  if ('text' in summary) c.transcript.append({ role: 'assistant', content: summary.text });
  // A summary that hands the runtime's words back (seen: the stop request itself, from the 1.5B model) is no answer:
  // the run ends without one, and a note says why. The transcript keeps what the model wrote.
  const echo = 'text' in summary ? echoedInstructions(summary.text, c.input.prompt) : undefined;
  if (echo) c.note('model', `the final summary repeats the runtime's instructions (${echo}): no answer`);
  const ended: TurnOutcome =
    'text' in summary
      ? { status: stop.status, answer: echo ? '' : summary.text }
      : { status: stop.status, answer: c.transcript.lastAssistantText(), reason: summary.reason, error: summary.error };
  return stop.why === 'invalid' ? { ...ended, reason: 'InvalidToolCalls' } : ended;
}

/** Applies a pending interrupt: redirect (new user message, go on) or end the turn as interrupted. */
async function takeInterrupt(c: Conversation): Promise<TurnOutcome | undefined> {
  const { args: i, cut: cutCall } = c.stop.takeInterrupt()!;
  c.publish({ type: 'interrupted', reason: i.message ? `redirected: ${i.message.slice(0, 200)}` : (i.reason ?? 'stopped') });
  c.note('interrupt', i.message ? `redirected: ${i.message.slice(0, 80)}` : `stopped${i.reason ? `: ${i.reason}` : ''}`);
  const cut = cutCall ? `; ${cutCall} was cut short` : '';
  await traceOutcome(
    c.board,
    i.message
      ? `interrupted${i.reason ? ` (${i.reason})` : ''}${cut}: going on with the new message "${i.message.slice(0, 80)}"`
      : `interrupted${i.reason ? ` (${i.reason})` : ''}${cut}: the turn ended`,
  );
  if (i.message) {
    c.transcript.append({ role: 'user', content: i.message });
    return undefined;
  }
  return { status: 'interrupted', answer: interruptedAnswer(c.transcript.lastAssistantText(), i.reason), reason: i.reason };
}
