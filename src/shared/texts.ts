// Texts the loop itself adds to the conversation. Kept together so their wording is easy to review.

/** The answer a scheduled run gives when there is nothing to report: no webhook delivery happens. */
export const NOTHING_TO_REPORT = 'NOTHING_TO_REPORT';

/**
 * Heading in front of the per-conversation part of the system prompt (workspace, schedule, the caller's text).
 * What comes before it is the same for every conversation with the same tools, so a server's prompt cache can
 * reuse it; the model activity inserts text-mode tool descriptions right before it (src/llm/text-mode.ts).
 */
export const CONVERSATION_HEADING = '## This conversation';

/**
 * A small model's first answer of a turn, given before any tool ran, is asked for once more (model-step.ts): the
 * 1.5B model answered "100" and "3" to "how many lines does server.log have?" without reading it.
 */
export const UNTOOLED_ANSWER_NUDGE =
  'You have not used any tool yet. If the answer depends on the workspace (its files, the output of a command), ' +
  'call a tool now to find out or to do it; if it does not, reply with the same answer again.';

export const EMPTY_NUDGE = 'Your last reply was empty. Continue the task: call a tool, or reply with your final answer.';

export function finalSummaryRequest(reason: 'budget' | 'repeating' | 'invalid', detail: string): string {
  const why = {
    budget: `The budget for this task is used up (${detail}).`,
    repeating: `You are repeating the same action with the same result (${detail}) and the run is being stopped.`,
    invalid: `${detail}: they name tools you do not have or have invalid arguments, and the run is being stopped.`,
  }[reason];
  return `${why} Do not call any tools. Summarize your progress: what is done, what remains, and the best answer you can give now.`;
}

export function loopWarning(tool: string): string {
  return (
    `You have called ${tool} with the same arguments and got the same result three times in your last steps. ` +
    'You are looping. Change your approach, or give your final answer. If you repeat it again, the run stops.'
  );
}

export function duplicateResult(of: string): string {
  return `(duplicate of call ${of} in the same message; it ran once and its result is above)`;
}

export function unknownOutcome(tool: string, why: string): string {
  return (
    `Error: the outcome of ${tool} is unknown: ${why}. It may or may not have taken effect. ` + 'Check the current state before running it again.'
  );
}

export function interruptedAnswer(lastText: string, reason?: string): string {
  const head = `Interrupted${reason ? `: ${reason}` : ''}.`;
  return lastText ? `${head}\n\n${lastText}` : head;
}

/** Why a step was cut short, as the model reads it: "by interrupt", "because the time budget ran out"… */
export function cancelledRunning(why: string): string {
  return `Error: cancelled ${why} before it finished; it may have partly run.`;
}

/** Added to the last result of a reply that held more tool calls than one reply may make. */
export function droppedCallsNote(dropped: number, max: number): string {
  return `[${dropped} more tool call(s) of this reply were not run: one reply may make at most ${max}. Make the ones still needed in your next step.]`;
}

export function cancelledBeforeStart(why: string): string {
  return `Error: not run: cancelled ${why}.`;
}

export function clarifyTimedOut(seconds: number): string {
  return `No answer came within ${seconds} s. Proceed on your best judgment and say which assumption you made.`;
}

export function approvalDenied(how: 'user' | 'timeout' | 'policy', reason: string, seconds?: number): string {
  if (how === 'user') return `Error: the user denied this command (${reason}). It did not run. Choose another approach.`;
  if (how === 'timeout') return `Error: no approval came within ${seconds} s, so the command was denied (${reason}). It did not run.`;
  return `Error: this command needs approval (${reason}) and this run cannot ask for it, so it did not run.`;
}

export function refused(reason: string): string {
  return `Error: refused: ${reason}. This command is never run; do not try to work around this.`;
}

/** The model wrote something that looks like a tool call but could not be read as one. */
export function unparsedCallCorrection(why: string): string {
  return `Your tool call could not be parsed: ${why}. ${CALL_FORMAT_REMINDER}`;
}

export const CALL_FORMAT_REMINDER =
  'To call a tool, reply with exactly one JSON object per call inside <tool_call></tool_call> tags: ' +
  '<tool_call>{"name": "TOOL", "arguments": {...}}</tool_call> — or answer in plain text.';

/**
 * The call format text mode's system prompt teaches (src/llm/text-mode.ts inserts it before the tool list). Here,
 * not there, so the workflow can tell a reply that parrots it (echo-check.ts) from an answer.
 */
export const TEXT_MODE_CALL_FORMAT = [
  '# Tools',
  '',
  'You may call one or more functions to assist with the user query.',
  '',
  'You are provided with function signatures within <tools></tools> XML tags:',
].join('\n');

/** After the tool list of a constrained step (src/llm/constrained.ts): the one format the grammar allows. */
export function CONSTRAINED_STEP_RULES(answer: string): string {
  return [
    'Each reply is one JSON object, one step:',
    '{"thought": "<what you know now and what this step must do, one sentence>", "tool": "<tool name>", "arguments": {...}} calls that tool; its result comes back in the next message.',
    `{"tool": "${answer}", "arguments": {"text": "<final answer>"}} ends the task: use it only when the task is done (or cannot be done), with what you did and found.`,
  ].join('\n');
}

/**
 * A reply that says what the model will do next ("I will call a tool to count the lines.") with no call: asked
 * once to act or answer (model-step.ts), not taken as the answer.
 */
export const ANNOUNCED_ACTION_NUDGE =
  'Your last reply says what you will do next but does not do it. If a tool is needed, call it now; if the task is ' +
  'done, reply with your final answer.';

/**
 * After the tool list: the call format in the words of the Hermes function-calling format, which Qwen2.5's chat
 * template (and others trained on it) use, so a small model sees the prompt it was trained on.
 */
export const TEXT_MODE_CALL_RULES = [
  'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
  '<tool_call>',
  '{"name": <function-name>, "arguments": <args-json-object>}',
  '</tool_call>',
  'The results come back in the next message. When the task is done, reply with your final answer and no <tool_call>.',
].join('\n');

/** A final reply made before any tool ran that holds a made-up tool result (echo-check.ts madeUpResult). */
export function madeUpResultCorrection(why: string): string {
  return (
    `Your reply is not an answer: ${why}. Results come from running the tool. Call the tool now and wait for its ` + `result. ${CALL_FORMAT_REMINDER}`
  );
}

/** A final reply that repeats the runtime's own instructions instead of answering (echo-check.ts). */
export function echoCorrection(what: string): string {
  return (
    `Your reply repeats the instructions of the runtime (${what}) instead of doing the task. Do not repeat them. ` +
    // No call format here: the echo seen most was that format, and a correction holding it was handed back again.
    `Do the next step of the task now: call a tool, or give your own final answer.`
  );
}

/** What text mode shows of a reply that consisted of made-up tool results only (src/llm/text-mode.ts). */
export const REMOVED_RESULTS = '(a reply that wrote tool results itself)';

/** Why a text-mode reply that writes a <tool_response> itself is not an answer (src/llm/text-mode.ts). */
export function inventedResultReason(tools: string[]): string {
  return (
    'the reply writes a tool result itself (<tool_response>) but no <tool_call>: results come from running the tool, ' +
    `so write the call and wait for its result; tools: ${tools.join(', ')}`
  );
}

/**
 * The nudge for a reply that only repeats a tool result the conversation holds, in the results' tag (the model
 * activity flags it: ModelCallResult.repeatedResult). No call format in it: corrected with one, small models hand
 * the format back.
 */
export const REPEATED_RESULT_NUDGE =
  'Your reply only repeats a tool result that is already in the conversation. Do not repeat it. If the task is ' +
  'done, reply with your answer in plain words; if not, do the next step.';

/** The system prompt text a sub-agent gets after the usual one; its goal is its first user message. */
export function subAgentSystem(parentId: string, o: { overall?: string; context?: string; sharedContext?: string }): string {
  const lines = [
    `You are a sub-agent: another agent (conversation ${parentId}) handed you the task in the first user message.`,
    'Work on your own: nobody can answer questions, and commands that need approval are denied unless stated otherwise.',
    'When you are done, reply with a concise summary of what you did and what you found (files changed, results,',
    'anything left open). That summary is all the other agent sees of your work.',
  ];
  if (o.overall) lines.push('', `The overall goal your task serves: ${o.overall}`);
  const context = [o.sharedContext, o.context].filter(Boolean).join('\n\n');
  if (context) lines.push('', 'Context:', context);
  return lines.join('\n');
}

/** delegate_task called where it is not offered: at the depth limit, or with delegation off. */
export function delegationRefused(depth: number, maxDepth: number): string {
  const where = depth === 0 ? 'this conversation' : `this sub-agent (depth ${depth})`;
  return (
    `Error: delegate_task is not available: ${where} is at the delegation depth limit (delegation.maxDepth ${maxDepth}). ` +
    'Do the work yourself with your own tools.'
  );
}

/**
 * Where the new message starts in the prompt of a chat request that resent its history without a session
 * (src/http-api/request.ts): what the echo check holds a reply against is the message after it, since an answer
 * that repeats an earlier turn of the resent history is an answer, not the task handed back.
 */
export const CURRENT_MESSAGE_HEADING = '\n\nThe current message:\n\n';

/** The message a prompt asks about: after the last CURRENT_MESSAGE_HEADING, else the whole prompt. */
export function currentMessage(prompt: string): string {
  const at = prompt.lastIndexOf(CURRENT_MESSAGE_HEADING);
  return at < 0 ? prompt : prompt.slice(at + CURRENT_MESSAGE_HEADING.length);
}

/** A client tool call whose results did not come: what the model reads as its result. */
export function clientResultMissing(why: string): string {
  return `Error: the client did not return a result for this call (${why}). It may or may not have run.`;
}

/** The start of the nudge for an answer that lacks the client's answer format (model-step.ts finds it by this). */
export const ANSWER_FORMAT_NUDGE_HEAD = 'Your answer must be';

/**
 * An answer that is not in the format the client asked for (its `response_format`): asked once more, with the
 * schema, since a model whose endpoint could not be sent the format has not seen it.
 */
export function answerFormatNudge(format: { type: string; name?: string; schema?: unknown }, error: string): string {
  const what =
    format.type === 'json_schema'
      ? `a JSON value matching the JSON Schema "${format.name}":\n${JSON.stringify(format.schema).slice(0, 8_000)}\n`
      : 'a JSON object. ';
  return `${ANSWER_FORMAT_NUDGE_HEAD} ${what}It is not: ${error}. Reply again with the JSON alone: no other text, no code fence.`;
}
