// AES-256-GCM payload codec: with a key configured, every payload the worker and the client send (workflow
// inputs and results, activity inputs and results, signals, updates, queries, memos, summaries) is stored by the
// Temporal server as ciphertext. Search attributes are not payloads run through codecs and stay readable.
//
// Left in clear on purpose, so the Web UI says how to read the rest: exactly the notice that names the key id
// (marker.ts), which the client sets as a run's static details; and the handler definitions of a workflow's answer
// to the SDK's metadata query (metadata-view.ts: names and descriptions from our code; the answer itself travels
// encrypted in that payload's metadata).
//
// Wire format of an encrypted payload:
//   metadata { encoding: "binary/encrypted", encryption-key-id: <id> }
//   data     iv (12 bytes) + AES-256-GCM ciphertext of the whole original Payload (protobuf) + tag (16 bytes)
// The original payload (its metadata included) comes back byte for byte on decode. Payloads not marked
// encrypted pass through decode unchanged, so a worker with a key still reads histories written without one.
//
// A payload that does not open (its key id unknown here, or the key fails) throws PayloadDecryptError, except in
// a worker's workflow activations (`markUndecodable`): there it becomes a `binary/undecodable` marker naming the
// key ids (src/shared/undecodable.ts), which the workflow rejects as bad input instead of failing its task forever.
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec, type SerializationContext } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { encryptionNotice } from './marker';
import { publicMetadataView } from './metadata-view';
import {
  UNDECODABLE_DECODER_KEY_IDS,
  UNDECODABLE_ENCODING,
  UNDECODABLE_KEY_ID,
  UNDECODABLE_REASON,
  type UndecodableReason,
} from '../shared/undecodable';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** The key configuration is wrong (bad key, unreadable key file, …): raised when the codec is made. */
export class PayloadKeyError extends Error {
  override name = 'PayloadKeyError';
}

/** A payload that cannot be decrypted here: its key is unknown, or the key does not open it. */
export class PayloadDecryptError extends Error {
  override name = 'PayloadDecryptError';
  constructor(
    message: string,
    /** Why: no key with that id here, the key with that id fails, or no key id at all. */
    readonly reason: UndecodableReason,
    /** The key id the payload names. */
    readonly keyId: string | undefined,
    /** The key ids this process has. */
    readonly knownKeyIds: string[],
  ) {
    super(message);
  }
}

export interface AesGcmCodecOptions {
  /**
   * Workers: a workflow payload (context type `workflow`: inputs, signal, update and query arguments) that does not
   * decrypt becomes a `binary/undecodable` marker instead of an error. Activity payloads still throw.
   */
  markUndecodable?: boolean;
}

export interface PayloadKey {
  id: string;
  key: Buffer;
}

export interface PayloadKeys {
  /** Encrypts everything; also decrypts. */
  current: PayloadKey;
  /** Decrypt only (key rotation). */
  old: PayloadKey[];
}

/** The default key id: the first 8 hex characters of sha256(key). Not secret, and not enough to find the key. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

const KEY_HELP = 'a 32-byte key written as base64 (44 characters) or hex (64 characters); make one with `openssl rand -base64 32`';

/** A key from its text form (base64 or hex of exactly 32 bytes). `source` names it in the error. */
export function parseKey(text: string, source: string): Buffer {
  const s = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(s)) {
    const key = Buffer.from(s, 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  // Never echo the value: it may be a (mistyped) secret.
  throw new PayloadKeyError(`${source} is not ${KEY_HELP} (got ${s.length} characters)`);
}

function readKeyFile(file: string): Buffer {
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch (err) {
    throw new PayloadKeyError(`HERMES_PAYLOAD_KEY_FILE ${file}: cannot read it: ${(err as Error).message}`);
  }
  const text = raw.toString('utf8').trim();
  if (/^[0-9a-fA-F]{64}$/.test(text) || /^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return parseKey(text, `HERMES_PAYLOAD_KEY_FILE ${file}`);
  // Or the 32 raw bytes themselves (e.g. `head -c 32 /dev/urandom > key`).
  if (raw.length === KEY_BYTES) return raw;
  throw new PayloadKeyError(`HERMES_PAYLOAD_KEY_FILE ${file} does not hold ${KEY_HELP}, or 32 raw bytes (it has ${raw.length} bytes)`);
}

function checkKeyId(id: string, source: string): string {
  if (!/^[\x21-\x7e]{1,100}$/.test(id) || /[,:]/.test(id)) {
    throw new PayloadKeyError(`${source} must be 1-100 printable characters without spaces, commas or colons, got "${id}"`);
  }
  return id;
}

/**
 * The payload keys from the environment, or undefined when none is configured:
 *  HERMES_PAYLOAD_KEY       the key (base64 or hex of 32 bytes), or
 *  HERMES_PAYLOAD_KEY_FILE  a file holding it
 *  HERMES_PAYLOAD_KEY_ID    its id in each payload's metadata (default: first 8 hex chars of sha256(key))
 *  HERMES_PAYLOAD_OLD_KEYS  comma-separated earlier keys, `KEY` or `ID:KEY`, used only to decrypt
 * A partial or broken configuration is an error, never a silent fallback to plaintext.
 */
export function loadPayloadKeys(env: NodeJS.ProcessEnv = process.env): PayloadKeys | undefined {
  const inline = env.HERMES_PAYLOAD_KEY?.trim();
  const file = env.HERMES_PAYLOAD_KEY_FILE?.trim();
  const explicitId = env.HERMES_PAYLOAD_KEY_ID?.trim();
  const oldText = env.HERMES_PAYLOAD_OLD_KEYS?.trim();
  if (!inline && !file) {
    const stray = [explicitId && 'HERMES_PAYLOAD_KEY_ID', oldText && 'HERMES_PAYLOAD_OLD_KEYS'].filter(Boolean);
    if (stray.length) throw new PayloadKeyError(`${stray.join(' and ')} set without HERMES_PAYLOAD_KEY (or HERMES_PAYLOAD_KEY_FILE)`);
    return undefined;
  }
  if (inline && file) throw new PayloadKeyError('set HERMES_PAYLOAD_KEY or HERMES_PAYLOAD_KEY_FILE, not both');
  const key = inline ? parseKey(inline, 'HERMES_PAYLOAD_KEY') : readKeyFile(file!);
  const current = { id: explicitId ? checkKeyId(explicitId, 'HERMES_PAYLOAD_KEY_ID') : keyIdOf(key), key };
  const old: PayloadKey[] = [];
  for (const [i, entry] of (oldText ?? '').split(',').entries()) {
    const e = entry.trim();
    if (!e) continue;
    const colon = e.indexOf(':');
    const source = `HERMES_PAYLOAD_OLD_KEYS entry ${i + 1}`;
    const k = parseKey(colon < 0 ? e : e.slice(colon + 1), source);
    old.push({ id: colon < 0 ? keyIdOf(k) : checkKeyId(e.slice(0, colon).trim(), `${source}: the key id`), key: k });
  }
  const seen = new Map<string, Buffer>();
  for (const k of [current, ...old]) {
    const other = seen.get(k.id);
    if (other && !other.equals(k.key)) throw new PayloadKeyError(`two different payload keys have the id "${k.id}"`);
    seen.set(k.id, k.key);
  }
  return { current, old };
}

function encodingOf(p: Payload): string | undefined {
  const e = p.metadata?.[METADATA_ENCODING_KEY];
  return e ? Buffer.from(e).toString('utf8') : undefined;
}

export function isEncrypted(p: Payload): boolean {
  return encodingOf(p) === ENCRYPTED_ENCODING;
}

/** Metadata of a public view (metadata-view.ts) holding the encrypted original: iv + ciphertext + tag. */
export const SEALED_METADATA = 'encrypted-original';

/** The encrypted original a public view carries, as an ordinary encrypted payload. */
function sealedIn(p: Payload): Payload | undefined {
  const data = p.metadata?.[SEALED_METADATA];
  const id = p.metadata?.[KEY_ID_METADATA];
  if (!data) return undefined;
  return { metadata: { [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING), ...(id ? { [KEY_ID_METADATA]: id } : {}) }, data };
}

export class AesGcmCodec implements PayloadCodec {
  private readonly keys = new Map<string, Buffer>();
  private readonly current: PayloadKey;
  private readonly markUndecodable: boolean;
  private readonly noticeText: string;
  private readonly notice: Buffer;

  constructor(keys: PayloadKeys, opts: AesGcmCodecOptions = {}) {
    this.markUndecodable = opts.markUndecodable ?? false;
    for (const k of [keys.current, ...keys.old]) {
      if (k.key.length !== KEY_BYTES) throw new PayloadKeyError(`payload key "${k.id}" has ${k.key.length} bytes, not ${KEY_BYTES}`);
      this.keys.set(k.id, k.key);
    }
    this.current = keys.current;
    this.noticeText = encryptionNotice(this.current.id);
    this.notice = Buffer.from(JSON.stringify(this.noticeText));
  }

  /** The id written into each payload this codec encrypts. */
  get keyId(): string {
    return this.current.id;
  }

  /** Every key id this codec can decrypt. */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return payloads.map((p) => {
      if (this.isNotice(p)) return p;
      const sealed = this.encrypt(p);
      // A workflow's answer to the SDK's metadata query: its definitions in clear, the answer sealed (metadata-view.ts).
      const view = context?.type === 'workflow' ? publicMetadataView(p, this.noticeText) : undefined;
      if (!view) return sealed;
      return {
        metadata: {
          [METADATA_ENCODING_KEY]: Buffer.from('json/plain'),
          [KEY_ID_METADATA]: Buffer.from(this.current.id),
          [SEALED_METADATA]: Buffer.from(sealed.data!),
        },
        data: view,
      };
    });
  }

  /**
   * The one payload left in clear: exactly the notice that the run is encrypted (marker.ts, the client's static
   * details), so the Web UI shows it without the codec server. Its text is made from the key id alone.
   */
  private isNotice(p: Payload): boolean {
    const meta = p.metadata ?? {};
    const keys = Object.keys(meta);
    return (
      keys.length === 1 &&
      encodingOf(p) === 'json/plain' &&
      p.data?.length === this.notice.length &&
      Buffer.from(p.data.buffer, p.data.byteOffset, p.data.length).equals(this.notice)
    );
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const mark = this.markUndecodable && context?.type === 'workflow';
    return payloads.map((p) => {
      const sealed = sealedIn(p) ?? p;
      if (!isEncrypted(sealed)) return p;
      if (!mark) return this.decrypt(sealed);
      try {
        return this.decrypt(sealed);
      } catch (err) {
        if (!(err instanceof PayloadDecryptError)) throw err;
        return undecodableMarker(err);
      }
    });
  }

  private encrypt(payload: Payload): Payload {
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: Buffer.from(this.current.id),
      },
      data: Buffer.concat([iv, body, cipher.getAuthTag()]),
    };
  }

  private decrypt(payload: Payload): Payload {
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    if (!idBytes) {
      throw new PayloadDecryptError(
        `payload is ${ENCRYPTED_ENCODING} but names no ${KEY_ID_METADATA}: corrupted`,
        'corrupted',
        undefined,
        this.keyIds,
      );
    }
    const id = Buffer.from(idBytes).toString('utf8');
    const key = this.keys.get(id);
    if (!key) {
      throw new PayloadDecryptError(
        `payload was encrypted with key ${id}, which this process does not have (it has ${this.keyIds.join(', ')}): ` +
          'set HERMES_PAYLOAD_KEY to that key, or add it to HERMES_PAYLOAD_OLD_KEYS',
        'unknown-key',
        id,
        this.keyIds,
      );
    }
    const data = Buffer.from(payload.data ?? []);
    const failed = () => new PayloadDecryptError(`payload failed to decrypt with key ${id}: wrong key or corrupted`, 'wrong-key', id, this.keyIds);
    if (data.length < IV_BYTES + TAG_BYTES) throw failed();
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw failed();
    }
    const decoded = temporal.api.common.v1.Payload.decode(plain);
    return { metadata: decoded.metadata, data: decoded.data };
  }
}

/** The stand-in for a payload that did not decrypt: key ids only, no data. */
function undecodableMarker(err: PayloadDecryptError): Payload {
  return {
    metadata: {
      [METADATA_ENCODING_KEY]: Buffer.from(UNDECODABLE_ENCODING),
      [UNDECODABLE_REASON]: Buffer.from(err.reason),
      [UNDECODABLE_DECODER_KEY_IDS]: Buffer.from(err.knownKeyIds.join(',')),
      ...(err.keyId ? { [UNDECODABLE_KEY_ID]: Buffer.from(err.keyId) } : {}),
    },
    data: new Uint8Array(0),
  };
}
