// Where a worker keeps checkpoints and how large a file may be to go in: HERMES_CHECKPOINTS=off turns them off,
// HERMES_CHECKPOINT_DIR moves the store (default <HERMES_HOME>/checkpoints), HERMES_CHECKPOINT_MAX_FILE_BYTES sets
// the size limit (default 1 MiB). `hermes rollback` reads the same variables, so it finds what the worker wrote.
import path from 'node:path';
import { hermesHome } from '../shared/paths';
import { DEFAULT_MAX_FILE_BYTES, type CheckpointSettings } from './store';

export function checkpointSettings(env: NodeJS.ProcessEnv = process.env): CheckpointSettings | false {
  if (/^(off|0|false|no)$/i.test(env.HERMES_CHECKPOINTS?.trim() ?? '')) return false;
  const max = env.HERMES_CHECKPOINT_MAX_FILE_BYTES?.trim();
  const maxFileBytes = max ? Number(max) : DEFAULT_MAX_FILE_BYTES;
  if (!(Number.isInteger(maxFileBytes) && maxFileBytes >= 0))
    throw new Error(`HERMES_CHECKPOINT_MAX_FILE_BYTES must be a whole number of bytes, got "${max}"`);
  const dir = env.HERMES_CHECKPOINT_DIR?.trim();
  const home = env.HERMES_HOME?.trim() ? path.resolve(env.HERMES_HOME.trim()) : hermesHome();
  return { dir: path.resolve(dir || path.join(home, 'checkpoints')), maxFileBytes };
}
