// Encrypted payloads, opt-in: with HERMES_PAYLOAD_KEY (or HERMES_PAYLOAD_KEY_FILE) set, the client, the worker,
// `hermes replay` and `hermes inspect` all use the AES-256-GCM codec (aes.ts); without it nothing changes — no
// codec. The payload store (src/storage) joins the same data converter.
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { externalStorage } from '../storage';
import { AesGcmCodec, loadPayloadKeys, type AesGcmCodecOptions } from './aes';

export {
  AesGcmCodec,
  type AesGcmCodecOptions,
  ENCRYPTED_ENCODING,
  isEncrypted,
  KEY_ID_METADATA,
  keyIdOf,
  loadPayloadKeys,
  PayloadDecryptError,
  PayloadKeyError,
} from './aes';

/** The payload codec configured by the environment, or undefined when no key is set. Throws on a bad key. */
export function payloadCodec(env: NodeJS.ProcessEnv = process.env, opts: AesGcmCodecOptions = {}): AesGcmCodec | undefined {
  const keys = loadPayloadKeys(env);
  return keys ? new AesGcmCodec(keys, opts) : undefined;
}

/**
 * The client's data converter: the codec (with a key) and the payload store (src/storage, on by default with a
 * local server), or undefined when neither is configured.
 */
export function dataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  return withStore(payloadCodec(env), env);
}

/**
 * The data converter of workers and of `hermes replay` (which must decode as a worker does): a workflow payload
 * encrypted with a key this worker lacks reaches the workflow as a marker it rejects (src/shared/undecodable.ts),
 * so a client with another key gets a failed conversation at once instead of a workflow task failing forever.
 */
export function workerDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  return withStore(payloadCodec(env, { markUndecodable: true }), env);
}

function withStore(codec: PayloadCodec | undefined, env: NodeJS.ProcessEnv): DataConverter | undefined {
  const store = externalStorage(env);
  if (!codec && !store) return undefined;
  return { ...(codec ? { payloadCodecs: [codec] } : {}), ...(store ? { externalStorage: store } : {}) };
}

export function codecDataConverter(codec: PayloadCodec): DataConverter {
  return { payloadCodecs: [codec] };
}
