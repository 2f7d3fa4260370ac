// `hermes rollback ID [--step N] [--file F] [--diff] [--force]`: the workspace as it was before a step of a
// conversation, from the checkpoints its tool calls took (src/checkpoints/). Reads the checkpoint store on this
// machine (HERMES_CHECKPOINT_DIR, else <HERMES_HOME>/checkpoints), so it needs no server or worker.
import { parseArgs } from 'node:util';
import { applyRollback, planRollback, rollbackDiff, RollbackError, type RollbackPlan } from '../checkpoints/rollback';
import { checkpointSettings } from '../checkpoints/settings';
import { CheckpointStore } from '../checkpoints/store';
import { UsageError } from './common';

export async function rollback(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { step: { type: 'string' }, file: { type: 'string' }, diff: { type: 'boolean' }, force: { type: 'boolean' } },
  });
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError('hermes rollback needs one conversation id');
  const step = values.step !== undefined ? Number(values.step) : undefined;
  if (step !== undefined && !(Number.isInteger(step) && step > 0)) throw new UsageError('--step must be a positive whole number');
  const settings = checkpointSettings({ ...process.env, HERMES_CHECKPOINTS: 'on' });
  if (!settings) return 1;
  const store = new CheckpointStore(settings);
  let plan: RollbackPlan;
  try {
    const file = values.file === undefined ? {} : { file: values.file, cwd: process.cwd() };
    plan = await planRollback(store, { conversation: id, ...(step !== undefined ? { step } : {}), ...file, force: values.force === true });
  } catch (err) {
    if (!(err instanceof RollbackError)) throw err;
    process.stderr.write(`hermes rollback: ${err.message}\n`);
    return 1;
  }
  const when = new Date(plan.checkpoint.at * 1000).toISOString();
  const what = step !== undefined && plan.checkpoint.step !== step ? ` (the first file-changing step from ${step} on)` : '';
  process.stdout.write(
    `${values.diff ? 'would restore' : 'restoring'} ${plan.workspace} as it was before step ${plan.checkpoint.step}${what}, checkpoint ${plan.checkpoint.before.slice(0, 12)} of ${when}\n`,
  );
  for (const c of plan.changes) process.stdout.write(`  ${c.action.padEnd(7)} ${c.path}  (${c.why})\n`);
  const changed = plan.changes.filter((c) => c.action !== 'keep').length;
  const kept = plan.changes.length - changed;
  const noCopy = plan.changes.filter((c) => c.unrestorable).map((c) => c.path);
  const cannot = noCopy.length
    ? `${noCopy.length} file(s) cannot be restored, no copy in the checkpoint (over the size limit then), left as they are: ${noCopy.slice(0, 10).join(', ')}${noCopy.length > 10 ? ', …' : ''}\n`
    : '';
  if (values.diff) {
    const diff = await rollbackDiff(plan);
    if (diff) process.stdout.write(`\n${diff}`);
    process.stdout.write(`${changed} file(s) would change, ${kept} kept; nothing written (--diff)\n${cannot}`);
    return 0;
  }
  await applyRollback(plan);
  process.stdout.write(
    plan.changes.length ? `${changed} file(s) put back, ${kept} kept\n${cannot}` : 'nothing to restore: the workspace is as it was\n',
  );
  // A script must not take a partial rollback for a complete one.
  return noCopy.length ? 1 : 0;
}
