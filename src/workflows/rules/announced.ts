// A reply without tool calls that only says what the model will do next ("I will call a tool to count the lines of
// data.csv.", "Let me check the file.") is not an answer: the turn asks once to act or answer (model-step.ts).
// Pure: the workflow's rule, tested in announced.test.ts.

/** Longer replies are answers that may mention a next step; an announcement is a sentence or two. */
const MAX_ANNOUNCEMENT_CHARS = 300;

/** "I will …", "I'll …", "Let me …", "I am going to …", "Next, I will …", "Now I need to …" and the like. */
const ANNOUNCES = new RegExp(
  String.raw`^(?:(?:ok(?:ay)?|sure|alright|first|next|now|then|great)[,.!]?\s+)*` +
    String.raw`(?:i\s+will|i'll|i\s+am\s+going\s+to|i'm\s+going\s+to|let\s+me|let's|i\s+need\s+to|i\s+should|i\s+must|i\s+can\s+now)\s+` +
    String.raw`(?:now\s+|first\s+|next\s+)?(?:call|use|run|check|read|write|create|list|open|look|execute|count|search|fix|update|edit|start|inspect|find|verify|test|try|save|make|add|modify|view|examine|get|fetch|proceed)\b`,
  'i',
);

/** Whether the text announces an action instead of taking it or answering. */
export function announcesAction(text: string | null | undefined): boolean {
  const t = (text ?? '').trim();
  if (!t || t.length > MAX_ANNOUNCEMENT_CHARS) return false;
  // The last sentence decides: "The file has 3 lines. I will now verify it." announces; "I checked it: 3 lines." does not.
  const last = t.split(/(?<=[.!?:])\s+/).at(-1) ?? t;
  return ANNOUNCES.test(last);
}
