// Reasoning models: the thinking a model does before it answers never goes back into the context (DeepSeek
// rejects a request that carries `reasoning_content` back; for the others it is tokens paid twice) and never
// becomes the answer. It arrives as a separate field (`reasoning_content`: DeepSeek, vLLM, llama.cpp;
// `reasoning`: OpenRouter, Ollama) or written into the content as <think>…</think> (Qwen3, QwQ, DeepSeek-R1
// distills on servers without a reasoning parser). The activity keeps only a capped excerpt for `hermes inspect`.

/** Characters of reasoning kept per model step for inspect (head and tail): ~1 KB of history per reasoning step. */
export const REASONING_KEEP_CHARS = 1_000;

const OPEN = /<think>/i;
const CLOSE = /<\/think>/i;

/** The content without its thinking, and the thinking. */
export function splitThinking(content: string | null): { content: string | null; thinking: string } {
  if (content === null) return { content, thinking: '' };
  const thoughts: string[] = [];
  let rest = withoutBlocks(content, thoughts);
  // A template that opens the block in the prompt: the reply starts inside it, only the closing tag is written.
  const close = CLOSE.exec(rest);
  if (close && !OPEN.test(rest.slice(0, close.index))) {
    thoughts.unshift(rest.slice(0, close.index).trim());
    rest = rest.slice(close.index + close[0].length);
  }
  // A block never closed (the reply was cut at max_tokens while thinking): the rest is thinking. Only before any
  // answer text: a `<think>` written after it is the answer's own (one that explains the tags), kept whole.
  const open = OPEN.exec(rest);
  if (open && !rest.slice(0, open.index).trim()) {
    thoughts.push(rest.slice(open.index + open[0].length).trim());
    rest = rest.slice(0, open.index);
  }
  if (!thoughts.length) return { content, thinking: '' };
  return { content: rest.trim() || null, thinking: thoughts.filter(Boolean).join('\n\n') };
}

/**
 * The content without its <think>…</think> blocks (any case), their insides pushed to `thoughts`: each <think> pairs
 * with the first </think> after it. Searched with indexOf: /<think>([\s\S]*?)<\/think>/gi scanned to the end
 * again from each of many unclosed <think>s (quadratic); here the search stops when no </think> is left.
 */
function withoutBlocks(content: string, thoughts: string[]): string {
  // ASCII letters only, as /i without /u: the length stays, so indices match `content` (toLowerCase changes the
  // length of some characters and maps the Kelvin sign to "k").
  const lower = content.replace(/[A-Z]+/g, (s) => s.toLowerCase());
  let rest = '';
  let from = 0;
  for (;;) {
    const open = lower.indexOf('<think>', from);
    if (open < 0) break;
    const close = lower.indexOf('</think>', open + '<think>'.length);
    if (close < 0) break;
    thoughts.push(content.slice(open + '<think>'.length, close).trim());
    rest += content.slice(from, open);
    from = close + '</think>'.length;
  }
  return rest + content.slice(from);
}

/** The reasoning a reply carries in a field of its own. */
export function reasoningField(message: unknown): string {
  const m = message as { reasoning_content?: unknown; reasoning?: unknown } | null | undefined;
  if (typeof m?.reasoning_content === 'string') return m.reasoning_content.trim();
  if (typeof m?.reasoning === 'string') return m.reasoning.trim();
  return '';
}

/** Head and tail of the reasoning, at most REASONING_KEEP_CHARS characters. */
export function reasoningExcerpt(text: string): string {
  if (text.length <= REASONING_KEEP_CHARS) return text;
  const marker = ` [… ${text.length - REASONING_KEEP_CHARS} characters …] `;
  const keep = REASONING_KEEP_CHARS - marker.length;
  const head = Math.ceil(keep * 0.6);
  return `${text.slice(0, head)}${marker}${text.slice(text.length - (keep - head))}`;
}
