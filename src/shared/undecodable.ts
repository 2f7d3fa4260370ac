// A payload the worker's codec could not decrypt (src/codec/aes.ts, `markUndecodable`): instead of throwing — which
// fails the workflow task on every retry and wedges the conversation — the worker hands the workflow a payload
// with this encoding. It carries key ids only, never content: the id the payload names, the ids this worker has
// and why it did not open. The bundle's payload converter (src/workflows/engine/payload-converter.ts) turns it into the
// contract's unreadable marker, so the input, signal or update is rejected with the text below.
// Pure and free of node built-ins: the workflow sandbox imports it.
import type { Payload } from '@temporalio/common';
import { decode } from '@temporalio/common/lib/encoding';

export const UNDECODABLE_ENCODING = 'binary/undecodable';
/** The key id the payload was encrypted with (same metadata key as on the encrypted payload). */
export const UNDECODABLE_KEY_ID = 'encryption-key-id';
/** Why it did not open: `unknown-key` (no key with that id here), `wrong-key` (the key with that id fails), `corrupted`. */
export const UNDECODABLE_REASON = 'undecodable-reason';
/** The key ids the decoding process has, comma-separated. */
export const UNDECODABLE_DECODER_KEY_IDS = 'decoder-key-ids';

export type UndecodableReason = 'unknown-key' | 'wrong-key' | 'corrupted';

export interface Undecodable {
  /** The key id the payload names (absent when it names none). */
  keyId?: string;
  reason: UndecodableReason;
  /** The key ids of the process that could not decode it. */
  decoderKeyIds: string[];
}

const text = (p: Payload, key: string): string | undefined => {
  const v = p.metadata?.[key];
  return v ? decode(v) : undefined;
};

/** The marker's facts, when `p` is an undecodable-payload marker. */
export function readUndecodable(p: Payload): Undecodable | undefined {
  if (text(p, 'encoding') !== UNDECODABLE_ENCODING) return undefined;
  const reason = text(p, UNDECODABLE_REASON);
  const keyId = text(p, UNDECODABLE_KEY_ID);
  return {
    ...(keyId ? { keyId } : {}),
    reason: reason === 'unknown-key' || reason === 'wrong-key' ? reason : 'corrupted',
    decoderKeyIds: (text(p, UNDECODABLE_DECODER_KEY_IDS) ?? '').split(',').filter(Boolean),
  };
}

/**
 * What went wrong and what to do, from the worker's side: "the input was encrypted with key id X; this worker has
 * key ids [Y]: start the worker with the same HERMES_PAYLOAD_KEY as the client …". `what` names the payload.
 */
export function undecodableText(u: Undecodable, what: string): string {
  const mine = `[${u.decoderKeyIds.join(', ')}]`;
  switch (u.reason) {
    case 'unknown-key':
      return (
        `${what} was encrypted with key id ${u.keyId}; this worker has key ids ${mine}: start the worker with the same ` +
        `HERMES_PAYLOAD_KEY as the client (or add the client's key to the worker's HERMES_PAYLOAD_OLD_KEYS)`
      );
    case 'wrong-key':
      return (
        `${what} was encrypted with key id ${u.keyId}, and this worker's key with that id does not decrypt it (two ` +
        `different keys under one HERMES_PAYLOAD_KEY_ID, or a corrupted payload); this worker has key ids ${mine}: ` +
        'start the worker with the same HERMES_PAYLOAD_KEY as the client'
      );
    case 'corrupted':
      return `${what} is encrypted but names no key id: corrupted`;
  }
}
