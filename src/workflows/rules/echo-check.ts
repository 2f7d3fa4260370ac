// A reply is not an answer when it hands the runtime's own instructions back: a small model, corrected, may
// answer with the correction itself ("To call a tool, reply with exactly one JSON object …"), and the loop would
// end the turn with it. Pure and deterministic: the texts are this bundle's, the reply is recorded.
import { IDENTITY_AND_RULES } from '../../shared/system-prompt';
import {
  CALL_FORMAT_REMINDER,
  EMPTY_NUDGE,
  echoCorrection,
  finalSummaryRequest,
  inventedResultReason,
  loopWarning,
  REMOVED_RESULTS,
  REPEATED_RESULT_NUDGE,
  TEXT_MODE_CALL_FORMAT,
  TEXT_MODE_CALL_RULES,
  unparsedCallCorrection,
  UNTOOLED_ANSWER_NUDGE,
} from '../../shared/texts';

/**
 * Words in a row shared with a runtime text that make a reply an echo. Eight: "to call a tool, reply with exactly
 * one" is one run (seen parroted, with the rest reworded, by Qwen2.5-Coder-1.5B); ordinary answers do not share
 * eight words in a row with these texts.
 */
const RUN = 8;

/** Words of the shortest reply that can be an echo (of a short runtime text, as a whole). */
const SHORT = 3;

let shingles: Set<string> | undefined;
let texts: string[] | undefined;

/** Every text the runtime writes to the model, as its words joined by single spaces (padded with one). */
function runtimeTexts(): string[] {
  return (texts ??= [
    TEXT_MODE_CALL_FORMAT,
    TEXT_MODE_CALL_RULES,
    CALL_FORMAT_REMINDER,
    unparsedCallCorrection(''),
    echoCorrection(''),
    EMPTY_NUDGE,
    UNTOOLED_ANSWER_NUDGE,
    loopWarning(''),
    finalSummaryRequest('budget', ''),
    finalSummaryRequest('repeating', ''),
    finalSummaryRequest('invalid', ''),
    inventedResultReason([]),
    REPEATED_RESULT_NUDGE,
    REMOVED_RESULTS,
    ...IDENTITY_AND_RULES,
  ].map((t) => ` ${words(t).join(' ')} `));
}

/** Every run of RUN words of every text the runtime writes to the model. */
function runtimeShingles(): Set<string> {
  return (shingles ??= new Set(runtimeTexts().flatMap((t) => runs(t.trim().split(' ')))));
}

/** Lower-case words (letters, digits and the tag brackets), punctuation and markup dropped. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9<>/_]+/g) ?? [];
}

function runs(ws: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + RUN <= ws.length; i++) out.push(ws.slice(i, i + RUN).join(' '));
  return out;
}

/**
 * When the reply repeats RUN words in a row of the runtime's instructions, or of `task` (the user's message the
 * turn answers): the words it repeats (for the correction and the step record); undefined for an ordinary reply.
 */
export function echoedInstructions(text: string | null | undefined, task?: string): string | undefined {
  if (!text) return undefined;
  const ws = words(text);
  if (ws.length < SHORT) return undefined;
  // The task itself handed back is no answer either (seen: the fix-function prompt as the "answer"): the whole reply
  // is a piece of the task. Only the whole: an answer that restates the task ("I created a file named …") is one.
  if (task && ` ${words(task).join(' ')} `.includes(` ${ws.join(' ')} `)) return `"${ws.slice(0, RUN).join(' ')} …" (the task)`;
  // A short runtime text handed back whole (seen: text mode's "(a reply that wrote tool results itself)" as the
  // answer) is one too; shorter than a run, it would pass the shingles. Whole only: "the task is done" is in one.
  if (ws.length < RUN && runtimeTexts().includes(` ${ws.join(' ')} `)) return `"${ws.join(' ')}"`;
  const known = runtimeShingles();
  const hit = runs(ws).find((s) => known.has(s));
  return hit === undefined ? undefined : `"${hit} …"`;
}

// What the built-in tools' results look like (write_file, terminal, read_file): a reply written before any tool has
// run that holds one quotes no result; it made one up (seen: "```\nWrote 27 bytes to …/answer.py\nexit code: 0\n```"
// as the answer to "run python3 answer.py").
const RESULT_SHAPES = [/^Wrote \d+ bytes to \S/m, /^exit code: -?\d+\s*$/m, /^\[lines \d+-\d+ of \d+/m];

/** When a reply made before any tool result holds what only a tool's result holds: a short description. */
export function madeUpResult(text: string | null | undefined, anyResultYet: boolean): string | undefined {
  if (!text || anyResultYet) return undefined;
  const hit = RESULT_SHAPES.map((re) => re.exec(text)?.[0]).find((m) => m !== undefined);
  return hit === undefined ? undefined : `"${hit.trim().slice(0, 40)}" is what a tool's result says, and no tool has run yet`;
}
