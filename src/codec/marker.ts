// What an encrypted run shows in clear, so that the Web UI points the way to `hermes codec-server` instead of
// showing blank summaries and base64: the search attribute HermesEncryption (`aes-gcm key <id>`, set at start by
// the client; search attributes never pass through codecs) and the run's static details, a fixed notice that the
// codec leaves unencrypted (aes.ts). Both carry the key id only — already in every payload's metadata — never
// content.
import type { Client, WorkflowStartOptions } from '@temporalio/client';
import { HermesEncryption } from '../shared/search-attributes';
import { searchAttributeCommand, unregisteredAttribute } from '../startup/register-attributes';

/** The HermesEncryption value of a run encrypted with key `keyId`. */
export function encryptionAttribute(keyId: string): string {
  return `aes-gcm key ${keyId}`;
}

/** The static details of a run encrypted with key `keyId` (markdown, shown on the run's page in the Web UI). */
export function encryptionNotice(keyId: string): string {
  return (
    `Encrypted with hermes payload key ${keyId} (AES-256-GCM): inputs, results, summaries and query answers are ` +
    "`binary/encrypted` here. To read them, run `hermes codec-server` with the workers' HERMES_PAYLOAD_KEY and set " +
    'the codec endpoint in the Web UI (Codec Server settings, http://127.0.0.1:8888 by default).'
  );
}

/** The key id a client (or a workflow client: a handle's) encrypts with, when its data converter has Hermes's codec. */
export function encryptionKeyId(client: { options: { loadedDataConverter: { payloadCodecs: unknown[] } } }): string | undefined {
  for (const c of client.options.loadedDataConverter.payloadCodecs as Array<{ keyId?: unknown; keyIds?: unknown }>) {
    if (typeof c.keyId === 'string' && Array.isArray(c.keyIds)) return c.keyId;
  }
  return undefined;
}

type Marker = Pick<WorkflowStartOptions, 'typedSearchAttributes' | 'staticDetails'>;

/**
 * Starts a workflow with the encryption marker when `client` encrypts: `start` gets the options to add. With
 * `attributes` false (clusters where Hermes cannot register search attributes) only the static details are set.
 * A namespace that lacks HermesEncryption (registered by workers and the embedded server, but an older cluster's
 * admin may not have added it) gets a start without it and one line on stderr: a marker never fails a start.
 */
export async function startMarked<T>(client: Client, attributes: boolean, start: (marker: Marker) => Promise<T>): Promise<T> {
  const keyId = encryptionKeyId(client);
  if (!keyId) return start({});
  const details = { staticDetails: encryptionNotice(keyId) };
  if (!attributes) return start(details);
  try {
    return await start({ ...details, typedSearchAttributes: [{ key: HermesEncryption, value: encryptionAttribute(keyId) }] });
  } catch (err) {
    if (!unregisteredAttribute(err, HermesEncryption.name)) throw err;
    process.stderr.write(
      `hermes: namespace ${client.options.namespace} has no search attribute ${HermesEncryption.name}; started without it ` +
        `(add it: ${searchAttributeCommand(client.options.namespace, HermesEncryption.name)})\n`,
    );
    return start(details);
  }
}
