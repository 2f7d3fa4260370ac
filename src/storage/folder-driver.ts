// An External Storage driver (the SDK's claim check, `DataConverter.externalStorage`) that keeps payloads in a
// folder: content-addressed (sha256 of the encoded payload), gzipped, written to a temporary name, fsynced and
// renamed before the claim is returned. The worker stores a workflow task's payloads before it completes the task,
// so a reference the server records always names a file already on disk: a worker SIGKILLed right after it is
// no problem for the next one, as long as the next one reads the same folder (the embedded server's workers share
// the Hermes home; a cluster's workers need a shared volume — docs/operations/cluster.md).
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';
import { StorageDriverClaim, type Payload, type StorageDriver } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);
const PayloadProto = temporal.api.common.v1.Payload;

export const FOLDER_DRIVER_NAME = 'hermes-folder';
const KEY = /^[0-9a-f]{64}$/;

export class FolderStorageDriver implements StorageDriver {
  readonly name = FOLDER_DRIVER_NAME;
  readonly type = 'hermes.folder';

  constructor(readonly root: string) {}

  async store(_ctx: unknown, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    return Promise.all(
      payloads.map(async (p) => {
        const bytes = PayloadProto.encode(p).finish();
        const key = createHash('sha256').update(bytes).digest('hex');
        const file = this.fileOf(key);
        // Same bytes, same name: a payload stored before (another run's identical carry, a retried task) is kept.
        if (!(await exists(file))) await writeDurably(file, await gzip(bytes));
        return new StorageDriverClaim({ key });
      }),
    );
  }

  async retrieve(_ctx: unknown, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return Promise.all(
      claims.map(async (c) => {
        const key = c.claimData.key ?? '';
        if (!KEY.test(key)) throw new Error(`payload store: malformed claim ${JSON.stringify(c.claimData)}`);
        let zipped: Buffer;
        try {
          zipped = await fs.readFile(this.fileOf(key));
        } catch (err) {
          const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(err);
          throw new Error(
            `payload store: ${key} is not in ${this.root} (${why}). Every worker and client of a cluster must read the ` +
              'same folder (HERMES_PAYLOAD_STORE on a shared volume)',
          );
        }
        const corrupt = (why: string) => new Error(`payload store: ${key} is corrupt in ${this.root} (${why})`);
        const bytes = await gunzip(zipped).catch((err: Error) => {
          throw corrupt(`not gzip: ${err.message}`);
        });
        // Content addressing doubles as an integrity check: a truncated or edited file is not handed to a workflow.
        if (createHash('sha256').update(bytes).digest('hex') !== key) throw corrupt('its content does not match its name');
        return PayloadProto.decode(bytes) as Payload;
      }),
    );
  }

  fileOf(key: string): string {
    return path.join(this.root, key.slice(0, 2), `${key}.gz`);
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

async function writeDurably(file: string, data: Buffer): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const h = await fs.open(tmp, 'wx', 0o600);
  try {
    await h.writeFile(data);
    await h.sync();
  } finally {
    await h.close();
  }
  await fs.rename(tmp, file);
}
