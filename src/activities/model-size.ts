// A model reply as a payload Temporal accepts. The server refuses a payload over 2 MiB: the activity's result would
// then fail to upload on every retry, each one a paid model call, and the reply would be lost. Each text is capped
// in characters where the reply is read (model.ts), but several calls of ~512 KB, or text that JSON escapes to
// several bytes a character, still add up past the limit; so the whole result is measured as the bytes it records.
import { TOO_LARGE_MARKER, type ModelCallResult } from '../shared/wire';

/** What one reply may take, in JSON bytes: the limit less room for the other fields and a payload codec. */
export const MAX_RESULT_BYTES = 1536 * 1024;

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? '');

/** Arguments smaller than this are never marked: the marker would save next to nothing. */
const MIN_MARKED_BYTES = 1024;

/**
 * The result within `max` bytes: the largest part goes first. A call's arguments become a too-large marker (the
 * workflow answers such a call with an error the model can act on, "send big content in several smaller calls");
 * the text is cut to what is left. Unchanged when it fits.
 */
export function fitResult(r: ModelCallResult, max = MAX_RESULT_BYTES): ModelCallResult {
  // The usual reply: even at 6 bytes a character (JSON's \u escapes) far from the limit, so not written out.
  if (6 * charsOf(r) < max / 2) return r;
  let total = bytes(r);
  if (total <= max) return r;
  const calls = [...(r.message.tool_calls ?? [])];
  const largest = calls
    .map((c, i) => ({ i, size: bytes(c.function.arguments) }))
    .filter(({ i, size }) => size >= MIN_MARKED_BYTES && !calls[i]!.function.arguments.startsWith(TOO_LARGE_MARKER))
    .sort((a, b) => b.size - a.size);
  let content = r.message.content;
  let textCut = false;
  const cutText = () => {
    textCut = true;
    const before = bytes(content);
    content = cutToFit(content!, max - (total - before));
    total += bytes(content) - before;
  };
  for (const { i, size } of largest) {
    if (total <= max) break;
    if (!textCut && content && bytes(content) > size) cutText();
    if (total <= max) break;
    const c = calls[i]!;
    const marker = `${TOO_LARGE_MARKER}${c.function.arguments.length} characters, with the reply's other calls more than one step may record`;
    calls[i] = { ...c, function: { ...c.function, arguments: marker } };
    total -= size - bytes(marker);
  }
  if (total > max && content && !textCut) cutText();
  return { ...r, message: { content, ...(calls.length ? { tool_calls: calls } : {}) } };
}

/** `text` cut, with a note saying so, to at most `room` bytes of JSON. */
function cutToFit(text: string, room: number): string {
  const note = (kept: number) => `\n[... reply cut: ${text.length - kept} more characters, more than one step may record]`;
  const budget = room - bytes(note(0)); // the note at its longest
  let keep = text.length;
  // Bytes per character vary along the text: cut in proportion until it fits (a few rounds).
  for (let size = bytes(text); keep > 0 && size > budget; size = bytes(text.slice(0, keep))) {
    keep = Math.max(0, Math.min(keep - 1, Math.floor((keep * budget) / size)));
  }
  return keep === text.length ? text : text.slice(0, keep) + note(keep);
}

/** The characters of a result's texts, roughly (its names, usage and such are small). */
function charsOf(r: ModelCallResult): number {
  let n = (r.message.content?.length ?? 0) + (r.reasoning?.text.length ?? 0) + (r.unparsedToolCall?.length ?? 0) + 1024;
  for (const c of r.message.tool_calls ?? []) n += c.function.arguments.length + c.function.name.length + c.id.length + 64;
  return n;
}
