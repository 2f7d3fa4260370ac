// Commands that steer a running conversation: interrupt, answer, approve, cancel.
import { parseArgs } from 'node:util';
import { need, UsageError, withHermes } from './common';

export async function interrupt(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { message: { type: 'string' }, reason: { type: 'string' } },
  });
  const id = need(positionals[0], 'hermes interrupt needs a workflow id');
  return withHermes(async (hermes) => {
    const redaction = await hermes
      .get(id)
      .interrupt({ reason: values.reason ?? 'interrupted from the CLI', ...(values.message ? { message: values.message } : {}) });
    if (redaction) process.stderr.write(`hermes: ${redaction.notice}\n`);
    process.stderr.write(`interrupt sent to ${id}${values.message ? ' (with a new message)' : ''}\n`);
    return 0;
  });
}

export async function answer(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const id = need(positionals[0], 'hermes answer needs a workflow id and the answer text');
  const text = need(positionals.slice(1).join(' ').trim() || undefined, 'hermes answer needs the answer text');
  return withHermes(async (hermes) => {
    const r = await hermes.get(id).answer(text);
    if (r.redaction) process.stderr.write(`hermes: ${r.redaction.notice}\n`);
    process.stderr.write(`answered ${r.callId}\n`);
    return 0;
  });
}

export async function approve(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { deny: { type: 'boolean' }, approve: { type: 'boolean' }, remember: { type: 'boolean' } },
  });
  const id = need(positionals[0], 'hermes approve needs a workflow id and a call id');
  const callId = need(positionals[1], 'hermes approve needs the call id (see hermes status ID)');
  if (values.deny && values.approve) throw new UsageError('choose one of --approve and --deny');
  const decision = values.deny ? 'deny' : 'approve';
  return withHermes(async (hermes) => {
    const r = await hermes.get(id).approve(callId, decision, Boolean(values.remember));
    process.stderr.write(
      `${r.decision === 'deny' ? 'denied' : 'approved'} ${r.callId}${r.workflowId ? ` (passed on to the sub-agent ${r.workflowId})` : ''}\n`,
    );
    return 0;
  });
}

export async function cancel(args: string[]): Promise<number> {
  const id = need(args[0], 'hermes cancel needs a workflow id');
  return withHermes(async (hermes) => {
    await hermes.get(id).cancel();
    process.stderr.write(`cancellation requested for ${id}\n`);
    return 0;
  });
}
