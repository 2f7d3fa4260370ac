// The Web UI's Queries tab lists a workflow's queries from the SDK's built-in `__temporal_workflow_metadata` query.
// Encrypted, its answer cannot be read without the codec server, and the tab spins forever over "This will fail if
// you have no workers running" while a worker answers in ~0.1 s. The answer holds the handler definitions (names
// and descriptions, static in our code: src/workflows/loop/message-handlers.ts, memory.ts) and `currentDetails` (the markdown of
// setCurrentDetails: the task, the last step — content). So the codec sends a public view — the definitions, with
// the notice in place of the details — and the whole original answer encrypted in its metadata; decoding (the
// client, `hermes codec-server`) gives back the original byte for byte.
import { METADATA_ENCODING_KEY, type Payload } from '@temporalio/common';

const JSON_PLAIN = 'json/plain';
/** How the SDK serialises the answer (JSON.stringify keeps its key order): checked before anything is parsed. */
const PREFIX = Buffer.from('{"definition":{"type":');
const DEFINITION_KEYS = new Set(['type', 'queryDefinitions', 'signalDefinitions', 'updateDefinitions']);

interface HandlerDefinition {
  name: string;
  description?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalString = (v: unknown) => v === undefined || typeof v === 'string';

function definitions(v: unknown): HandlerDefinition[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return undefined;
  const out: HandlerDefinition[] = [];
  for (const d of v) {
    if (!isObject(d) || typeof d.name !== 'string' || !optionalString(d.description)) return undefined;
    if (Object.keys(d).some((k) => k !== 'name' && k !== 'description')) return undefined;
    out.push({ name: d.name, ...(typeof d.description === 'string' ? { description: d.description } : {}) });
  }
  return out;
}

/**
 * When `p` is exactly an answer to `__temporal_workflow_metadata` (json/plain, `{ definition: { type,
 * queryDefinitions, signalDefinitions, updateDefinitions }, currentDetails }` and nothing else), the JSON of its
 * public view: the definitions, and `notice` as currentDetails. Otherwise undefined (the payload is encrypted whole).
 */
export function publicMetadataView(p: Payload, notice: string): Buffer | undefined {
  const meta = p.metadata ?? {};
  const encoding = meta[METADATA_ENCODING_KEY];
  if (Object.keys(meta).length !== 1 || !encoding || Buffer.from(encoding).toString('utf8') !== JSON_PLAIN) return undefined;
  const data = p.data;
  if (!data || data.length < PREFIX.length || !PREFIX.equals(Buffer.from(data.buffer, data.byteOffset, PREFIX.length))) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(value) || Object.keys(value).some((k) => k !== 'definition' && k !== 'currentDetails')) return undefined;
  if (!optionalString(value.currentDetails)) return undefined;
  const d = value.definition;
  if (!isObject(d) || typeof d.type !== 'string' || Object.keys(d).some((k) => !DEFINITION_KEYS.has(k))) return undefined;
  const [queryDefinitions, signalDefinitions, updateDefinitions] = [d.queryDefinitions, d.signalDefinitions, d.updateDefinitions].map(definitions);
  if (!queryDefinitions || !signalDefinitions || !updateDefinitions) return undefined;
  // Rebuilt from the checked fields only, so nothing else can ride along in clear.
  return Buffer.from(
    JSON.stringify({ definition: { type: d.type, queryDefinitions, signalDefinitions, updateDefinitions }, currentDetails: notice }),
  );
}
