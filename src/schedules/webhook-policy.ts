// Where a task's webhook may deliver. Whoever registers a task (the model with `task_register`, a user with
// `--webhook`) picks the URL the worker POSTs to, so it gets web_fetch's address policy (src/tools/web_fetch/
// address-policy.ts): http(s) only, public unicast addresses only. Its allow settings are its own —
// HERMES_WEBHOOK_ALLOW_PRIVATE, HERMES_WEBHOOK_ALLOW_HOSTS, the config file's schedules.webhookAllowPrivate /
// webhookAllowHosts — so a setup with a receiver on loopback or the LAN does not have to open web_fetch to them
// too (and the other way round). Checked when a task is registered (what can be told without DNS: the scheme,
// an IP literal, localhost) and again by the delivery activity on the address it connects to. The form alone
// ($NAME or an http(s) URL) is src/shared/webhook-form.ts, which the contract checks too.
import { readConfig } from '../config/load';
import { webhookForm } from '../shared/webhook-form';
import { AddressGuard, validAllowEntry, type GuardWording, type WebPolicy } from '../tools/web_fetch/address-policy';

const WORDING: GuardWording = {
  never: 'webhooks are delivered to unicast addresses only',
  refused:
    'webhooks are not delivered to loopback, private and link-local addresses unless the worker allows them ' +
    "(HERMES_WEBHOOK_ALLOW_PRIVATE=1, or the host in HERMES_WEBHOOK_ALLOW_HOSTS / the config file's schedules.webhookAllowHosts)",
};

/** This process's webhook policy: HERMES_WEBHOOK_ALLOW_PRIVATE / _HOSTS and the config file's `schedules` section. */
export function loadWebhookPolicy(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): WebPolicy {
  const schedules = readConfig(env, cwd)?.config.schedules;
  const fromEnv = (env.HERMES_WEBHOOK_ALLOW_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const bad = fromEnv.find((h) => !validAllowEntry(h));
  if (bad) throw new Error(`HERMES_WEBHOOK_ALLOW_HOSTS: ${JSON.stringify(bad)} is not a host name, *.domain, IP address or CIDR range`);
  return {
    allowPrivate: env.HERMES_WEBHOOK_ALLOW_PRIVATE === '1' || schedules?.webhookAllowPrivate === true,
    allowHosts: [...(schedules?.webhookAllowHosts ?? []), ...fromEnv],
  };
}

export function webhookGuard(policy: WebPolicy = loadWebhookPolicy()): AddressGuard {
  return new AddressGuard(policy, WORDING);
}

/**
 * What is wrong with a task's webhook before anything is registered: its form (`$NAME`, or an http(s) URL), and
 * for a URL, an address the policy refuses that shows without DNS (an IP literal, localhost). The name's
 * addresses and a `$NAME`'s value are the worker's to check when it delivers.
 */
export function webhookProblem(webhook: string, guard: AddressGuard = webhookGuard()): string | undefined {
  const form = webhookForm(webhook);
  if ('problem' in form) return form.problem;
  const refused = form.url && guard.checkWithoutLookup(form.url.hostname);
  return refused && `webhook ${webhook.trim()}: ${guard.explain(refused)}`;
}
