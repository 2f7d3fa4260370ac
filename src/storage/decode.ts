// Payloads read straight from a history or a describe (what the SDK does not decode for us): the references of
// the payload store (External Storage) resolved first, then the codecs undone — the order the worker applies them
// in reverse (codecs encode, then the store offloads the encoded bytes, so a stored payload stays encrypted).
import type { LoadedDataConverter, Payload } from '@temporalio/common';
import { ExternalStorageRunner, isReferencePayload } from '@temporalio/common/lib/internal-non-workflow';

export async function decodeStoredPayloads(converter: LoadedDataConverter, payloads: Payload[]): Promise<Payload[]> {
  let out = payloads;
  if (out.some(isReferencePayload)) {
    if (!converter.externalStorage) {
      throw new Error(
        'this history holds payloads kept in the payload store (External Storage references): set HERMES_PAYLOAD_STORE ' +
          'to the folder its workers use',
      );
    }
    out = await new ExternalStorageRunner(converter.externalStorage).retrieve(out);
  }
  for (const codec of [...converter.payloadCodecs].reverse()) out = await codec.decode(out);
  return out;
}

/** One payload decoded and converted to a value (undefined for a missing payload). */
export async function decodeStoredValue<T = unknown>(converter: LoadedDataConverter, p: Payload | null | undefined): Promise<T | undefined> {
  if (!p) return undefined;
  const [decoded] = await decodeStoredPayloads(converter, [p]);
  return converter.payloadConverter.fromPayload<T>(decoded!);
}
