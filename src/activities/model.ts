// The model activity: one model call over the profile's transport (src/llm/transports/: chat completions, the
// OpenAI Responses API, Anthropic Messages). Temporal owns retries (the clients run with maxRetries: 0); failures
// are classified into stable types; the result is lean (assistant message + usage) and the same on every transport.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { classifyModelError } from '../llm/errors';
import type { LiveReply } from '../shared/events';
import { recoverToolCalls } from '../llm/parse-tool-calls';
import { reasoningExcerpt, splitThinking } from '../llm/reasoning';
import { costOf, fallbackChain, isSmallProfile, type ModelProfile, type ProfileSet } from '../llm/profiles';
import { holdsResults, inventedResult, quotedResults, rejectsTools, toTextMode, type Definition, type WireMessage } from '../llm/text-mode';
import { ToolModes, type WireMode } from '../llm/tool-modes';
import { parseStep, rejectsSchema, stepFormat, toConstrainedMode } from '../llm/constrained';
import { completeBody } from '../llm/constrained-complete';
import { FailureType } from '../shared/errors';
import { MAX_TOOL_CALLS_PER_REPLY, TOO_LARGE_MARKER } from '../shared/wire';
import { fitResult } from './model-size';
import { REPEATED_RESULT_NUDGE } from '../shared/texts';
import type { ChatMessage, ModelAttemptFailure, ModelCallInput, ModelCallResult, ToolCall } from '../shared/wire';
import { toolsQuery } from '../shared/messages';
import type { ToolCatalog } from '../tools/external';
import { observeModelCall } from '../observe/step';
import { toolDefinitions } from '../tools/registry';
import type { Redactor } from '../security/redact';
import type { ContextCache } from './context';
import { createTransport } from '../llm/transports';
import { checkAnswer, clientDefinitions } from '../llm/answer-format';
import type { PartialReply, Transport, TransportReply } from '../llm/transports/types';

export interface ModelDeps {
  profiles: ProfileSet;
  contextCache: ContextCache;
  env?: NodeJS.ProcessEnv;
  heartbeatMs?: number;
  /** Applied to the reply (text and tool-call arguments) and to failures before they leave the activity. */
  redactor?: Redactor;
  /** Remembers the catalog tool lists conversations recorded (else they are asked for with the `tools` query). */
  catalog?: ToolCatalog;
}

export function createModelActivities(deps: ModelDeps) {
  const transports = new Map<string, Transport>();
  const env = deps.env ?? process.env;
  const modes = new ToolModes();

  function transportFor(p: ModelProfile): Transport {
    let t = transports.get(p.name);
    if (!t) {
      t = createTransport(p, env);
      transports.set(p.name, t);
    }
    return t;
  }

  async function callModel(input: ModelCallInput): Promise<ModelCallResult> {
    const ctx = Context.current();
    const profile = deps.profiles.profiles[input.profile ?? deps.profiles.defaultName];
    if (!profile) {
      throw ApplicationFailure.nonRetryable(
        `unknown model profile "${input.profile}" (known: ${Object.keys(deps.profiles.profiles).join(', ')})`,
        FailureType.ModelConfig,
      );
    }
    const exec = ctx.info.workflowExecution;
    if (!exec) throw ApplicationFailure.nonRetryable('callModel must run inside a conversation workflow', FailureType.ModelConfig);
    const { workflowId, runId } = exec;
    // Heartbeats let Temporal notice a dead worker long before startToClose, and deliver cancellation —
    // from the start: fetching the context (a cold query that replays the workflow) can take a while too. Their
    // details (the Web UI's pending-activity card) say which step, on which model, how long and which try,
    // and while the endpoint streams, the reply so far (redacted; watchers read it): nothing of the context. They also carry the failures of the attempts before this one, so the one
    // that succeeds can report them: Temporal keeps only the latest failure of a retried activity, the workflow none.
    const failures = earlierFailures(ctx.info.heartbeatDetails);
    const started = Date.now();
    // The reply so far while the endpoint streams: watchers read it from these details (src/shared/events.ts). Made
    // (split, redacted) when a heartbeat goes out, not at every streamed piece: per piece, a long reply streamed in
    // small pieces cost the square of its length (a 100 KB answer in 4-character pieces: 28 s of CPU).
    let partial: PartialReply | undefined;
    const details = () => {
      const live = partial && liveReply(partial, input, ctx.info.attempt, deps.redactor);
      return {
        step: input.step,
        model: `${profile.name}: ${profile.model}`,
        elapsedSec: Math.floor((Date.now() - started) / 1000),
        attempt: ctx.info.attempt,
        failures,
        ...(live ? { live } : {}),
      };
    };
    const progress = (p: PartialReply) => {
      partial = p;
    };
    const beat = setInterval(() => ctx.heartbeat(details()), deps.heartbeatMs ?? 200);
    const info = {
      workflowId,
      runId,
      step: input.step,
      attempt: ctx.info.attempt,
      profile: profile.name,
      model: profile.model,
      baseURL: profile.baseURL,
      purpose: input.purpose,
      redactor: deps.redactor,
    };
    // The span, the metrics and the step's log line (src/observe/step.ts).
    return observeModelCall(info, async (obs) => {
      try {
        const messages = await deps.contextCache.get(ctx.client, workflowId, runId, input.context);
        obs.request(messages);
        ctx.cancellationSignal.throwIfAborted();
        // Built-ins from the bundle, catalog tools from the recorded list: the same in native and text mode.
        // The client's tools of a `hermes serve` turn come in the input (src/llm/answer-format.ts).
        const tools = [...(input.tools.length ? await definitions(input, profile, ctx.client, workflowId, runId) : []), ...clientDefinitions(input)];
        const send = (mode: WireMode) => {
          partial = undefined;
          return transportFor(profile).send({
            messages: wireMessages(mode, messages, tools),
            tools: mode === 'native' ? tools : [],
            ...(mode === 'constrained' ? { responseFormat: stepFormat(tools) } : {}),
            // What the client asked of the turn, where the endpoint's protocol can carry it: native calls only.
            ...(mode === 'native' && input.toolChoice && tools.length ? { toolChoice: input.toolChoice } : {}),
            ...(mode === 'native' && input.answerFormat ? { answerFormat: input.answerFormat } : {}),
            signal: ctx.cancellationSignal,
            onProgress: progress,
          });
        };
        // Text and constrained modes are for the small models chat-completions servers serve: the other transports'
        // models call tools natively. A step without tools (the final summary) is a plain call in every mode.
        const chat = profile.transport === 'chat';
        const modeNow = () => {
          const m = chat ? modes.modeOf(profile) : 'native';
          return m === 'constrained' && !tools.length ? 'native' : m;
        };
        let mode = modeNow();
        let modeNote: string | undefined;
        let res: TransportReply;
        try {
          res = await send(mode);
        } catch (err) {
          if (ctx.cancellationSignal.aborted || !tools.length || !chat) throw err;
          if (mode === 'constrained' && rejectsSchema(err) && modes.schemaRejected(profile)) {
            // The endpoint takes no step schema: today's modes from now on (this worker), said once in the history.
            mode = modeNow();
            modeNote = `the endpoint refused the constrained step's response_format (${(err as Error).message.slice(0, 120)}): ${mode} tool calls from now on`;
            ctx.log.info(modeNote, { profile: profile.name });
            res = await send(mode);
          } else {
            // auto: a server without tool support answers the same request in text mode, at once and from now on.
            if (mode !== 'native' || !rejectsTools(err) || !modes.rejected(profile)) throw err;
            ctx.log.info('model endpoint rejected tools: text tool-call mode from now on', { profile: profile.name, error: (err as Error).message });
            mode = 'text';
            res = await send(mode);
          }
        }
        let cut: string | undefined;
        if (mode === 'constrained') {
          // A tool whose body is written as plain text: asked for in a second request (src/llm/constrained-body.ts).
          const plain = (wire: WireMessage[]) => {
            partial = undefined;
            return transportFor(profile).send({ messages: wire, tools: [], signal: ctx.cancellationSignal, onProgress: progress });
          };
          ({ res, cut } = await completeBody(res, messages, tools, stepCallId(res, input), plain));
        }
        obs.response({ id: res.id, model: res.model, finishReason: res.finishReason, cachedTokens: res.usage?.cachedTokens });
        const raw = formatted(toResult(res, profile, input, mode, tools, messages, cut), input);
        if (
          chat &&
          mode === 'native' &&
          tools.length &&
          modes.observe(profile, Boolean(raw.message.tool_calls?.length && !raw.fromText), Boolean(raw.fromText))
        ) {
          ctx.log.info('model writes its tool calls as text and never natively: text tool-call mode from now on', { profile: profile.name });
        }
        // Redacted before the cache sees it: the cache must hold exactly what the workflow records.
        const result = fitResult(deps.redactor ? redactResult(raw, deps.redactor) : raw);
        deps.contextCache.noteAssistant(workflowId, result);
        // Asked once per profile: the workflow compresses its context against this window (src/workflows/loop/compress.ts).
        const retried = ctx.info.attempt > 1 ? { attempt: ctx.info.attempt, failures } : {};
        const noted = modeNote ? { modeNote } : {};
        return input.window ? { ...result, ...retried, ...noted, contextWindow: profile.contextWindow } : { ...result, ...retried, ...noted };
      } catch (err) {
        // Cancelled (interrupt, workflow cancel): let Temporal see the cancellation, not a model failure.
        if (ctx.cancellationSignal.aborted) throw err;
        const classified = classifyModelError(err, profile.baseURL);
        // An endpoint's error text can quote what it was sent; the failure is recorded in history.
        const failure = deps.redactor ? deps.redactor.error(classified) : classified;
        // The next attempt reads this from its heartbeat details (see earlierFailures). Without the text so far:
        // the next attempt starts it again, and a watcher sees the restart by the attempt number.
        partial = undefined;
        ctx.heartbeat({ ...details(), failures: [...failures, failureNote(failure)].slice(-MAX_FAILURES_KEPT) });
        throw failure;
      } finally {
        clearInterval(beat);
      }
    });
  }

  /** Built-in definitions from the bundle's specs; catalog tools from the list the conversation recorded. */
  async function definitions(input: ModelCallInput, profile: ModelProfile, client: Client, workflowId: string, runId: string): Promise<Definition[]> {
    // A small model is sent each tool's one-line brief and a trimmed schema (src/tools/registry.ts).
    const builtin = toolDefinitions(input.tools, isSmallProfile(profile));
    if (!input.toolList) return builtin;
    let list = deps.catalog?.recordedList(input.toolList);
    if (!list) {
      // Another worker recorded it, or this one restarted: the workflow has it (a query is not recorded).
      list = (await client.workflow.getHandle(workflowId, runId).query(toolsQuery)) ?? undefined;
      if (list) deps.catalog?.rememberList(list);
    }
    const offered = new Set(input.tools);
    const external = (list?.tools ?? [])
      .filter((t) => offered.has(t.name))
      .map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } }));
    return [...builtin, ...external];
  }

  /**
   * Local activity, asked only when a model step falls through: the profiles after `primary` it may continue on.
   * The workflow cannot read the worker's config; the answer is recorded (a marker), so replay does not ask.
   */
  async function modelFallbacks(args: { primary?: string; runFallback?: string }): Promise<{ chain: string[] }> {
    return { chain: fallbackChain(deps.profiles, args.primary, args.runFallback) };
  }

  return { callModel, modelFallbacks };
}

/** The request's messages in a mode: native as recorded, text and constrained rewritten with the tools in the prompt. */
function wireMessages(mode: WireMode, messages: ChatMessage[], tools: Definition[]) {
  if (mode === 'text') return toTextMode(messages, tools);
  if (mode === 'constrained') return toConstrainedMode(messages, tools);
  return messages;
}

/** The texts of the tool results the request holds. */
function toolResults(messages: ChatMessage[]): string[] {
  return messages.flatMap((m) => (m.role === 'tool' && typeof m.content === 'string' ? [m.content] : []));
}

function asText(v: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a non-string name is garbage either way
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

/** Longest tool name or call id kept (the workflow answers a call by an unknown name with its name). */
const MAX_NAME_CHARS = 256;

function nameText(v: unknown): string {
  const name = asText(v);
  return name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS)}… (${name.length} characters)` : name;
}

function argumentsText(v: unknown): string {
  let text: string;
  if (v === undefined || v === null || v === '') text = '{}';
  else if (typeof v === 'string') text = v;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects go to JSON.stringify
  else text = typeof v === 'object' ? JSON.stringify(v) : String(v);
  // Temporal refuses payloads over 2 MB: a reply that large would fail this activity on every retry, each one a
  // paid model call. The workflow turns this marker into an error result the model can act on.
  return text.length > MAX_REPLY_CHARS ? `${TOO_LARGE_MARKER}${text.length} characters` : text;
}

/** Cap for the reply text and each call's arguments (Temporal's payload limit is 2 MB). */
export const MAX_REPLY_CHARS = 512 * 1024;

function capText(text: string | null): string | null {
  if (text === null || text.length <= MAX_REPLY_CHARS) return text;
  return `${text.slice(0, MAX_REPLY_CHARS)}\n[... reply cut: ${text.length - MAX_REPLY_CHARS} more characters]`;
}

function toResult(
  res: TransportReply,
  profile: ModelProfile,
  input: ModelCallInput,
  mode: WireMode,
  definitions: Definition[],
  messages: ChatMessage[],
  cut?: string,
): ModelCallResult {
  // Thinking is split off first: it must not become the answer, nor be read for tool calls written as text.
  const split = splitThinking(res.content);
  const thinking = [res.reasoning, split.thinking].filter(Boolean).join('\n\n');
  const content = capText(split.content);
  if (mode === 'constrained') return constrainedResult(res, profile, input, definitions, content, thinking, cut);
  const seen = new Set<string>();
  // Ids must be unique within a message: tool results are paired with calls by id.
  const uniqueId = (id: string | undefined, i: number) => {
    // An id is sent back with the call's result; a longer one than any endpoint makes is replaced.
    const base = id && id.length <= MAX_NAME_CHARS ? id : `call_${input.step}_${i}`;
    let out = base;
    for (let n = i; seen.has(out); n++) out = `${base}_${n}`;
    seen.add(out);
    return out;
  };
  // Servers differ: some omit `type`, some send arguments as an object. Normalise to strings here; the
  // workflow validates the rest and answers a malformed call with an error the model can read.
  let toolCalls: ToolCall[] = res.toolCalls.flatMap((tc, i) =>
    (tc.type === undefined || tc.type === 'function') && tc.function
      ? [
          {
            id: uniqueId(typeof tc.id === 'string' ? tc.id : undefined, i),
            type: 'function' as const,
            function: { name: nameText(tc.function.name), arguments: argumentsText(tc.function.arguments) },
          },
        ]
      : [],
  );
  // Tool calls written as text (see recoverToolCalls): the text itself is not an answer then. Text that looks
  // like an attempted call but yields none is flagged, so the workflow can ask again instead of ending the run.
  const recovered =
    toolCalls.length === 0 && content && (input.tools.length || input.clientTools?.length)
      ? recoverToolCalls(content, [...input.tools, ...(input.clientTools ?? []).map((t) => t.name)], `call_${input.step}_text`)
      : undefined;
  const fromText = !!recovered?.calls.length;
  if (recovered && fromText) {
    toolCalls = recovered.calls.map((c) => ({ ...c, function: { name: nameText(c.function.name), arguments: argumentsText(c.function.arguments) } }));
  }
  // A made-up result (or a call written in the results' tag) is neither an answer nor a result, in either mode: in
  // native mode too the model writes its calls as text until `auto` turns to text mode. A reply that only repeats
  // results the request holds is flagged (repeatedResult) and asked for once more; repeated right after that nudge,
  // it is an answer quoting them.
  const dropped = toolCalls.length - MAX_TOOL_CALLS_PER_REPLY;
  if (dropped > 0) toolCalls = toolCalls.slice(0, MAX_TOOL_CALLS_PER_REPLY);
  let unparsed = recovered?.unparsed;
  let repeated = false;
  let answer = content;
  if (!unparsed && recovered && !fromText && content && holdsResults(content)) {
    const quoted = quotedResults(content, toolResults(messages));
    if (quoted === undefined) unparsed = inventedResult(content, definitions);
    else if (messages.at(-1)?.content === REPEATED_RESULT_NUDGE) answer = quoted;
    else repeated = true;
  }
  return {
    message: { content: fromText ? null : answer, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
    ...(fromText ? { fromText: true as const } : {}),
    ...(mode === 'text' ? { toolMode: 'text' as const } : {}),
    ...(unparsed ? { unparsedToolCall: unparsed } : {}),
    ...(repeated ? { repeatedResult: true as const } : {}),
    ...(dropped > 0 ? { droppedToolCalls: dropped } : {}),
    ...usageOf(res, profile, thinking),
  };
}

/** An answer checked against the client's format: the JSON unwrapped from a fence, or why it does not fit. */
function formatted(r: ModelCallResult, input: ModelCallInput): ModelCallResult {
  if (!input.answerFormat || r.message.tool_calls?.length || r.unparsedToolCall || !r.message.content?.trim()) return r;
  const checked = checkAnswer(r.message.content, input.answerFormat);
  return 'error' in checked ? { ...r, formatError: checked.error } : { ...r, message: { ...r.message, content: checked.text } };
}

/** A constrained step's reply: one call, the answer, or (a server that ignored the schema) no step at all. */
function constrainedResult(
  res: TransportReply,
  profile: ModelProfile,
  input: ModelCallInput,
  definitions: Definition[],
  content: string | null,
  thinking: string,
  cut?: string,
): ModelCallResult {
  const parsed = parseStep(content, definitions, stepCallId(res, input));
  const step = cut ? { kind: 'unreadable' as const, reason: cut } : parsed;
  const message =
    step.kind === 'call'
      ? {
          // The thought is kept with the call (inspect and the Web UI show why the step was taken); the next
          // constrained step's context leaves it out (constrained.ts).
          content: step.thought ?? null,
          tool_calls: [{ ...step.call, function: { ...step.call.function, arguments: argumentsText(step.call.function.arguments) } }],
        }
      : { content: step.kind === 'answer' ? step.text : content };
  return {
    message,
    toolMode: 'constrained',
    ...(step.kind === 'unreadable' ? { unparsedToolCall: step.reason } : {}),
    ...usageOf(res, profile, thinking),
  };
}

/** The id of a constrained step's call: the server's, when it sent one. */
function stepCallId(res: TransportReply, input: ModelCallInput): string {
  const id = res.toolCalls[0]?.id;
  return typeof id === 'string' ? id : `call_${input.step}_0`;
}

/** Usage, cost, reasoning and model of a reply. */
function usageOf(res: TransportReply, profile: ModelProfile, thinking: string): Pick<ModelCallResult, 'usage' | 'reasoning' | 'model'> {
  const prompt = res.usage?.promptTokens ?? 0;
  const completion = res.usage?.completionTokens ?? 0;
  // Reported by most endpoints; otherwise estimated from the text (~4 characters a token).
  const reported = res.usage?.reasoningTokens;
  const reasoningTokens = typeof reported === 'number' && reported > 0 ? reported : thinking ? Math.ceil(thinking.length / 4) : 0;
  return {
    usage: {
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: res.usage?.totalTokens ?? prompt + completion,
      costUsd: costOf(profile, prompt, completion),
      ...(reasoningTokens ? { reasoningTokens } : {}),
    },
    ...(thinking ? { reasoning: { text: reasoningExcerpt(thinking), chars: thinking.length } } : {}),
    model: res.model ?? profile.model,
  };
}

/** The reply with secrets replaced in its text and in each tool call's arguments; the count when there were any. */
export function redactResult(r: ModelCallResult, redactor: Redactor): ModelCallResult {
  let count = 0;
  const content = r.message.content === null ? null : redactor.redact(r.message.content);
  count += content?.count ?? 0;
  const calls = r.message.tool_calls?.map((tc) => {
    const args = redactArguments(tc.function.arguments, redactor);
    count += args.count;
    return { ...tc, function: { ...tc.function, arguments: args.text } };
  });
  // The reason for an unrecovered call can quote the reply (a JSON parse error shows the text near the fault).
  const unparsed = r.unparsedToolCall === undefined ? undefined : redactor.redact(r.unparsedToolCall);
  count += unparsed?.count ?? 0;
  // The reasoning excerpt is recorded in history too.
  const reasoning = r.reasoning ? redactor.redact(r.reasoning.text) : undefined;
  count += reasoning?.count ?? 0;
  if (!count) return r;
  return {
    ...r,
    message: { content: content?.text ?? null, ...(calls ? { tool_calls: calls } : {}) },
    ...(unparsed ? { unparsedToolCall: unparsed.text } : {}),
    ...(r.reasoning && reasoning ? { reasoning: { ...r.reasoning, text: reasoning.text } } : {}),
    redactions: count,
  };
}

/**
 * Arguments are JSON text: a replacement must not break it. The placeholders contain no quote or backslash, so
 * redacting the text keeps valid JSON valid unless a match spans a string's end; then each string is redacted on
 * its own and the JSON written again.
 */
function redactArguments(args: string, redactor: Redactor): { text: string; count: number } {
  if (args.startsWith(TOO_LARGE_MARKER)) return { text: args, count: 0 };
  const whole = redactor.redact(args);
  if (whole.count === 0) return whole;
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return whole; // not JSON anyway: the workflow answers it with an error
  }
  try {
    JSON.parse(whole.text);
    return whole;
  } catch {
    let count = 0;
    const text = JSON.stringify(
      mapStrings(parsed, (v) => {
        const red = redactor.redact(v);
        count += red.count;
        return red.text;
      }),
    );
    return { text, count };
  }
}

function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [f(k), mapStrings(x, f)]));
  return v;
}

/** Characters of live text in the heartbeat details; the step's result has all of it. */
const MAX_LIVE_CHARS = 64 * 1024;
/**
 * Characters of all the calls' arguments together in them: with the text and the reasoning, at most 256 K
 * characters, ~1.5 MB if every one is a control character JSON writes in 6 bytes (a payload may take 2 MiB).
 */
const MAX_LIVE_CALL_CHARS = 128 * 1024;

/**
 * What a watcher may see of the reply so far: thinking split off (an unclosed <think> is still thinking), secrets
 * redacted as in the result, capped. Text that starts like a tool call written as text is shown as a call forming.
 */
function liveReply(p: PartialReply, input: ModelCallInput, attempt: number, redactor?: Redactor): LiveReply {
  // Up to the last whitespace: the word being written is held back, so a secret is redacted whole, never shown in part.
  const clean = (t: string) => {
    const done = t.slice(0, Math.max(t.search(/\s\S*$/) + 1, 0));
    return (redactor ? redactor.redact(done).text : done).slice(0, MAX_LIVE_CHARS);
  };
  const split = splitThinking(p.content || null);
  const content = split.content ?? '';
  const reasoning = [p.reasoning, split.thinking].filter(Boolean).join('\n\n');
  const asCall = (input.tools.length > 0 || Boolean(input.clientTools?.length)) && /^\s*(<tool_call|\{|```)/.test(content);
  let room = MAX_LIVE_CALL_CHARS;
  const callText = (t: string) => {
    const shown = room > 0 ? clean(t).slice(0, room) : '';
    room -= shown.length;
    return shown;
  };
  return {
    attempt,
    step: input.step,
    content: asCall ? '' : clean(content),
    reasoning: clean(reasoning),
    toolCalls: [
      ...p.toolCalls
        .slice(0, MAX_TOOL_CALLS_PER_REPLY)
        .map((c) => ({ index: c.index, name: c.name.slice(0, MAX_NAME_CHARS), arguments: callText(c.arguments) })),
      ...(asCall ? [{ index: p.toolCalls.length, name: '', arguments: clean(content) }] : []),
    ],
  };
}

/** How many earlier attempts' failures a model call remembers (the latest ones). */
const MAX_FAILURES_KEPT = 5;

/** One earlier attempt's failure: its type and the start of its (already redacted) message. */
function failureNote(err: unknown): ModelAttemptFailure {
  const e = err as { type?: string; message?: string };
  return { type: e.type ?? 'Error', message: String(e.message ?? err).slice(0, 160) };
}

function earlierFailures(details: unknown): ModelAttemptFailure[] {
  const f = (details as { failures?: unknown } | undefined)?.failures;
  if (!Array.isArray(f)) return [];
  return (f as unknown[]).filter((x): x is ModelAttemptFailure => {
    const o = x as Partial<ModelAttemptFailure> | null;
    return typeof o?.type === 'string' && typeof o.message === 'string';
  });
}
