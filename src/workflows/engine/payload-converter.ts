// The workflow sandbox's payload converter: the default one, except that a payload it cannot decode (an
// unknown encoding, bytes that are not JSON, the worker codec's `binary/undecodable` marker for a payload
// encrypted with another key) becomes a marker value instead of an exception. The default throws inside the
// workflow task, which then fails on every retry and leaves the conversation wedged; with the marker, the
// contract (src/shared/contract.ts) rejects the input, signal or update by name.
import { DefaultPayloadConverter, type Payload, type PayloadConverter } from '@temporalio/common';
import { UNDECODABLE_PAYLOAD, UNREADABLE_PAYLOAD } from '../../shared/contract';
import { readUndecodable, undecodableText } from '../../shared/undecodable';

class LenientPayloadConverter implements PayloadConverter {
  private readonly inner = new DefaultPayloadConverter();

  toPayload<T>(value: T): Payload {
    return this.inner.toPayload(value);
  }

  fromPayload<T>(payload: Payload): T {
    const undecodable = readUndecodable(payload);
    if (undecodable) return { [UNREADABLE_PAYLOAD]: undecodableText(undecodable, 'it'), [UNDECODABLE_PAYLOAD]: undecodable } as T;
    try {
      return this.inner.fromPayload<T>(payload);
    } catch (err) {
      return { [UNREADABLE_PAYLOAD]: err instanceof Error ? err.message : String(err) } as T;
    }
  }
}

export const payloadConverter = new LenientPayloadConverter();
