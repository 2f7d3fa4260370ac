// A client that cannot read what a conversation's worker wrote — it has no payload key, or another one than the
// worker's — says so with both key ids and what to do, instead of the SDK's "Unknown encoding: binary/encrypted"
// or a bare decrypt error. Used by ConversationHandle.result() and .state() (src/client.ts).
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { PAYLOAD_KEY_FAILURE } from '../shared/errors';
import type { UndecodableReason } from '../shared/undecodable';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA } from './aes';

/** This client cannot read a conversation's payloads because of its payload key. Matched by `type`. */
export class PayloadKeyMismatchError extends Error {
  override name = 'PayloadKeyMismatchError';
  readonly type = PAYLOAD_KEY_FAILURE;
  constructor(
    message: string,
    /** The key ids the unreadable payloads name (empty when unknown). */
    readonly writerKeyIds: string[],
    /** The key ids this client has (empty: no payload key). */
    readonly clientKeyIds: string[],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export function isPayloadKeyMismatch(err: unknown): err is PayloadKeyMismatchError {
  return (err as { type?: unknown } | null)?.type === PAYLOAD_KEY_FAILURE;
}

export type UnreadablePart = 'result' | 'state';

interface Cause {
  /** Undefined: this client has no key (the SDK met `binary/encrypted` without a codec). */
  reason?: UndecodableReason;
  keyId?: string;
}

/** What in `err` (or its causes) says a payload could not be read for want of the right key. */
function payloadKeyCause(err: unknown): Cause | undefined {
  for (let e = err as { name?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 8; e = e.cause as typeof e, i++) {
    if (e.name === 'PayloadDecryptError') {
      const d = e as { reason?: UndecodableReason; keyId?: string };
      return { reason: d.reason ?? 'wrong-key', ...(d.keyId ? { keyId: d.keyId } : {}) };
    }
    if (typeof e.message === 'string' && e.message.includes(`Unknown encoding: ${ENCRYPTED_ENCODING}`)) return {};
  }
  return undefined;
}

/** The key ids of the payload codecs this client decodes with (an AesGcmCodec's `keyIds`). */
function clientKeyIds(handle: WorkflowHandle): string[] {
  const codecs = handle.client.options.loadedDataConverter.payloadCodecs as Array<{ keyIds?: unknown }>;
  return codecs.flatMap((c) => (Array.isArray(c.keyIds) ? (c.keyIds as string[]) : []));
}

/** Every `encryption-key-id` in an undecoded proto message (a history event). */
function keyIdsIn(node: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (!node || typeof node !== 'object' || depth > 40 || node instanceof Uint8Array) return out;
  const metadata = (node as { metadata?: Record<string, Uint8Array> }).metadata;
  const id = metadata?.[KEY_ID_METADATA];
  if (id instanceof Uint8Array) out.add(Buffer.from(id).toString('utf8'));
  for (const v of Object.values(node)) keyIdsIn(v, out, depth + 1);
  return out;
}

interface WriterFacts {
  /** The key ids the worker wrote with. */
  keyIds: string[];
  /** A failed run's failure message (plaintext: failure messages are not payloads). */
  failure?: string;
}

/**
 * What the worker wrote, read raw (nothing decoded): for a result, the close event (its payloads' key ids, and
 * the failure message of a failed run); for the state, the key id of the worker's answer to the SDK's built-in
 * metadata query. Best effort: nothing when the server does not answer.
 */
async function writerFacts(handle: WorkflowHandle, part: UnreadablePart): Promise<WriterFacts> {
  const { workflowService, options } = handle.client;
  try {
    if (part === 'state') {
      const res = await workflowService.queryWorkflow({
        namespace: options.namespace,
        execution: { workflowId: handle.workflowId },
        query: { queryType: '__temporal_workflow_metadata' },
      });
      return { keyIds: [...keyIdsIn(res.queryResult)] };
    }
    const res = await workflowService.getWorkflowExecutionHistory({
      namespace: options.namespace,
      execution: { workflowId: handle.workflowId },
      historyEventFilterType: temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
    });
    const events = res.history?.events ?? [];
    const failure = events.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes?.failure?.message;
    return { keyIds: [...keyIdsIn(events)], ...(failure ? { failure } : {}) };
  } catch {
    return { keyIds: [] };
  }
}

const list = (ids: string[]) => `[${ids.join(', ')}]`;

/**
 * `err` explained when it means this client cannot read a payload of the conversation for want of the worker's
 * key (a PayloadKeyMismatchError naming both key ids, the cause kept); any other error comes back unchanged.
 */
export async function explainUnreadable(err: unknown, handle: WorkflowHandle, part: UnreadablePart): Promise<unknown> {
  if (isPayloadKeyMismatch(err)) return err;
  const cause = payloadKeyCause(err);
  if (!cause) return err;
  const mine = clientKeyIds(handle);
  const facts = await writerFacts(handle, part);
  const theirs = cause.keyId ? [cause.keyId] : facts.keyIds;
  const what = `the ${part === 'result' ? 'result' : 'state (the state query)'} of conversation ${handle.workflowId}`;
  let message: string;
  if (cause.reason === undefined || !mine.length) {
    message =
      `cannot read ${what}: it is encrypted (${ENCRYPTED_ENCODING}${theirs.length ? `, key id ${theirs.join(', ')}` : ''}) ` +
      "and this client has no payload key: set HERMES_PAYLOAD_KEY (or HERMES_PAYLOAD_KEY_FILE) to the workers' key. " +
      'To read it in the Web UI, run `hermes codec-server` with that key and set the codec endpoint in the UI.';
  } else if (cause.reason === 'unknown-key') {
    message =
      `cannot read ${what}: it is encrypted with key id ${theirs.join(', ')}, and this client has key ids ${list(mine)}: ` +
      "this client's HERMES_PAYLOAD_KEY is not the worker's (a worker ends a conversation whose input it cannot " +
      "decrypt as failed, BadInput, naming both key ids). Run the client with the worker's key.";
  } else {
    message =
      `cannot read ${what}: it names key id ${theirs.join(', ')}, and this client's key with that id does not decrypt it: ` +
      "two different keys share that id (HERMES_PAYLOAD_KEY_ID), or the payload is corrupted. Run the client with the worker's key.";
  }
  if (facts.failure) message += ` The conversation failed: ${facts.failure}`;
  else if (part === 'state')
    message += ` Nothing is stopped: with the worker's key, \`hermes status ${handle.workflowId}\` follows the conversation.`;
  return new PayloadKeyMismatchError(message, theirs, mine, { cause: err });
}
