// Encrypted payloads, opt-in: with HERMES_PAYLOAD_KEY (or HERMES_PAYLOAD_KEY_FILE) set, the client, the worker,
// `hermes replay` and `hermes inspect` all use the AES-256-GCM codec (aes.ts); without it nothing changes — no
// codec, no data converter, no overhead.
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { AesGcmCodec, loadPayloadKeys } from './aes';

export {
  AesGcmCodec,
  ENCRYPTED_ENCODING,
  isEncrypted,
  KEY_ID_METADATA,
  keyIdOf,
  loadPayloadKeys,
  parseKey,
  PayloadDecryptError,
  PayloadKeyError,
} from './aes';

/** The payload codec configured by the environment, or undefined when no key is set. Throws on a bad key. */
export function payloadCodec(env: NodeJS.ProcessEnv = process.env): AesGcmCodec | undefined {
  const keys = loadPayloadKeys(env);
  return keys ? new AesGcmCodec(keys) : undefined;
}

/** The data converter for Client and Worker (`dataConverter.payloadCodecs`), or undefined without a key. */
export function dataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const codec = payloadCodec(env);
  return codec ? codecDataConverter(codec) : undefined;
}

export function codecDataConverter(codec: PayloadCodec): DataConverter {
  return { payloadCodecs: [codec] };
}
