// Default workflow ids that say what the conversation is about: `hermes-create-notes-txt-6o9hww`, a slug of the
// prompt's first words and a random suffix (36^6 ≈ 2·10^9 per slug; the client retries once on a clash). The
// Web UI's list shows ids first, and a timestamp says nothing that the start time column does not.

const SLUG_WORDS = 5;
const SLUG_CHARS = 32;

/** Lowercase ASCII words of `text`, joined by `-`, at most 5 words and 32 characters; '' when none. */
export function slugOf(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .slice(0, SLUG_WORDS);
  let slug = '';
  for (const w of words) {
    const next = slug ? `${slug}-${w}` : w;
    if (next.length > SLUG_CHARS) break;
    slug = next;
  }
  return slug || (words[0] ?? '').slice(0, SLUG_CHARS);
}

/** `hermes-<slug of the prompt, else the mode>-<6 random base36 characters>`. */
export function newConversationId(prompt: string, mode = 'task', random: () => number = Math.random): string {
  const suffix = Array.from({ length: 6 }, () => Math.floor(random() * 36).toString(36)).join('');
  return `hermes-${slugOf(prompt) || mode}-${suffix}`;
}
