// Large payloads out of the history (Temporal External Storage, the claim check): a payload of at least
// HERMES_PAYLOAD_STORE_THRESHOLD bytes (default 128 KiB) — in practice the state a long conversation carries to
// its next run — is written to the payload store and the history keeps a ~100-byte reference. Small payloads (a
// step's model reply, a tool output) stay inline, readable in the Web UI as before.
//
// HERMES_PAYLOAD_STORE: a folder (every worker and client of a cluster must see the same one: a shared volume),
// or `off`. Unset: `<Hermes home>/payloads` when the server is on this machine (the embedded server, or an address
// on loopback), else off — a folder on one host of a cluster would hold references the others cannot read.
import path from 'node:path';
import { ExternalStorage } from '@temporalio/common';
import { hermesHome } from '../shared/paths';
import { FolderStorageDriver } from './folder-driver';

export { FolderStorageDriver } from './folder-driver';

export const DEFAULT_STORE_THRESHOLD = 128 * 1024;

export interface PayloadStoreSetting {
  folder?: string; // undefined: off
  threshold: number;
  why: string; // how the setting was chosen, for `hermes doctor` and the worker's start log
}

export function payloadStoreSetting(env: NodeJS.ProcessEnv = process.env): PayloadStoreSetting {
  const raw = env.HERMES_PAYLOAD_STORE?.trim();
  const threshold = thresholdOf(env.HERMES_PAYLOAD_STORE_THRESHOLD);
  if (raw === 'off') return { threshold, why: 'HERMES_PAYLOAD_STORE=off' };
  if (raw) return { folder: path.resolve(raw), threshold, why: 'HERMES_PAYLOAD_STORE' };
  if (!serverIsLocal(env)) return { threshold, why: 'the Temporal server is not on this machine and HERMES_PAYLOAD_STORE is not set' };
  return { folder: path.join(hermesHome(), 'payloads'), threshold, why: 'the Temporal server is on this machine' };
}

/** The data converter's `externalStorage` for the environment, or undefined when off. */
export function externalStorage(env: NodeJS.ProcessEnv = process.env): ExternalStorage | undefined {
  const s = payloadStoreSetting(env);
  if (!s.folder) return undefined;
  return new ExternalStorage({ drivers: [new FolderStorageDriver(s.folder)], payloadSizeThreshold: s.threshold });
}

function thresholdOf(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_STORE_THRESHOLD;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1024) throw new Error(`HERMES_PAYLOAD_STORE_THRESHOLD must be a whole number of bytes ≥ 1024, got "${raw}"`);
  return n;
}

function serverIsLocal(env: NodeJS.ProcessEnv): boolean {
  if (env.TEMPORAL_PROFILE || env.TEMPORAL_CONFIG_FILE) return false;
  const address = env.TEMPORAL_ADDRESS?.trim();
  if (!address) return true; // the embedded server
  const host = /^\[?([^\]]+?)\]?(:\d+)?$/.exec(address.replace(/^[a-z]+:\/\//i, ''))?.[1]?.toLowerCase();
  return host === 'localhost' || host === '::1' || (host?.startsWith('127.') ?? false);
}
