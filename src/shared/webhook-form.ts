// What a webhook value may look like, without any policy or I/O: `$NAME` (a URL in the worker's environment) or
// an http(s) URL. Pure, so the contract (which runs in the workflow sandbox, where `URL` exists) rejects a bad
// webhook as BadInput at the start of a run instead of leaving it to a delivery that fails after the work is done.
// Where a URL may point (loopback, private…) is the webhook policy's (src/schedules/webhook-policy.ts).

/** `$NAME`: the URL is the worker's environment variable NAME. */
const WEBHOOK_ENV_REF = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;
/** The variable a webhook of the form `$NAME` names, if it has that form. */
export const webhookEnvName = (webhook: string): string | undefined => WEBHOOK_ENV_REF.exec(webhook.trim())?.[1];

/** A literal webhook URL, or what is wrong with it (`target` names it: "webhook https://…" or "webhook $NAME"). */
export function webhookUrl(raw: string, target: string, literal: boolean): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${target} is not a URL${literal ? ' (expected http://… or https://…, or $NAME)' : ''}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${target}: only http and https URLs are accepted, not ${url.protocol}`;
  // A request to such a URL cannot even be made (fetch refuses it), so it would fail on every retry; and the
  // password would sit in the history. The message leaves the URL out: it holds the password.
  if (url.username || url.password)
    return (
      `${literal ? `webhook ${url.protocol}//…@${url.host}` : target}: a URL with a user name or password (user:pass@host) is refused: a webhook cannot send it, ` +
      'and it would be stored with the conversation; put a token in the path or query instead'
    );
  return url;
}

/** What is wrong with a webhook's form, if anything; a URL comes back parsed for the policy's checks. */
export function webhookForm(webhook: string): { problem: string } | { url?: URL } {
  const raw = webhook.trim();
  if (raw.startsWith('$')) {
    return webhookEnvName(raw) !== undefined
      ? {}
      : { problem: `webhook "${webhook}": an environment variable reference is $ and a name (letters, digits, _)` };
  }
  const url = webhookUrl(raw, `webhook ${raw}`, true);
  return typeof url === 'string' ? { problem: url } : { url };
}
