// Registering Hermes' custom search attributes in a namespace, tolerant of races and missing permissions.
import type { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_TYPES } from '../shared/search-attributes';

// IndexedValueType of temporal.api.enums.v1 (stable wire numbers).
const INDEXED_VALUE_TYPES: Record<string, number> = {
  text: 1,
  keyword: 2,
  int: 3,
  double: 4,
  bool: 5,
  datetime: 6,
  keywordlist: 7,
};

export function indexedValueType(type: string): number {
  const key = type
    .toLowerCase()
    .replace(/^indexed_value_type_/, '')
    .replace(/_/g, '');
  const v = INDEXED_VALUE_TYPES[key];
  if (v === undefined) throw new Error(`unknown search attribute type ${JSON.stringify(type)}`);
  return v;
}

function typeName(n: number): string {
  const e = Object.entries(INDEXED_VALUE_TYPES).find(([, v]) => v === n);
  return e ? e[0] : String(n);
}

function grpcCode(err: unknown): number | undefined {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

/**
 * The attributes of `attrs` a namespace cannot take: not registered, or registered with another type. The server
 * refuses a workflow task that upserts one of them (BadSearchAttributes) and retries it forever.
 */
export function unusableAttributes(current: Record<string, number>, attrs: Record<string, string> = SEARCH_ATTRIBUTE_TYPES): string[] {
  return Object.entries(attrs)
    .filter(([name, type]) => current[name] !== indexedValueType(type))
    .map(([name]) => name);
}

/**
 * Whether `err` is the server refusing a start, a schedule or a list query because the namespace has no search
 * attribute `name` ("no mapping defined for search attribute X"; a query: "invalid search attribute: X").
 */
export function unregisteredAttribute(err: unknown, name: string): boolean {
  const said = new RegExp(`(no mapping defined for search attribute|invalid search attribute:) ${name}\\b`);
  for (let e = err as { message?: unknown; details?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    for (const text of [e.message, e.details]) if (typeof text === 'string' && said.test(text)) return true;
  }
  return false;
}

export interface EnsureSearchAttributesResult {
  added: string[];
  existing: string[];
  warnings: string[];
}

/**
 * Registers the search attributes that the namespace lacks. "Already exists" counts as success; permission
 * errors (and any other failure) are reported through `warn` and in the result, never thrown — a worker
 * connecting to a cluster it may not administer must still start.
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  attrs: Record<string, string> = SEARCH_ATTRIBUTE_TYPES,
  warn: (message: string) => void = (m) => console.warn(m),
): Promise<EnsureSearchAttributesResult> {
  const result: EnsureSearchAttributesResult = { added: [], existing: [], warnings: [] };
  const report = (m: string) => {
    result.warnings.push(m);
    warn(m);
  };
  const wanted: Record<string, number> = {};
  for (const [name, type] of Object.entries(attrs)) wanted[name] = indexedValueType(type);
  if (Object.keys(wanted).length === 0) return result;

  let current: Record<string, number> = {};
  try {
    const res = await connection.operatorService.listSearchAttributes({ namespace });
    current = { ...(res.customAttributes ?? {}), ...(res.systemAttributes ?? {}) } as Record<string, number>;
  } catch (err) {
    report(
      `hermes: could not list search attributes of namespace ${namespace} (${(err as Error).message}); ` +
        `assuming ${Object.keys(wanted).join(', ')} are missing`,
    );
  }

  const missing: Record<string, number> = {};
  for (const [name, type] of Object.entries(wanted)) {
    if (current[name] === undefined) missing[name] = type;
    else {
      result.existing.push(name);
      if (current[name] !== type) {
        report(
          `hermes: search attribute ${name} exists in namespace ${namespace} with type ${typeName(current[name])}, ` +
            `expected ${typeName(type)}; conversations run without setting it`,
        );
      }
    }
  }
  if (Object.keys(missing).length === 0) return result;

  const add = async (subset: Record<string, number>): Promise<void> => {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: subset as never,
    });
  };
  try {
    await add(missing);
    result.added.push(...Object.keys(missing));
  } catch (err) {
    const code = grpcCode(err);
    if (code === 6 /* ALREADY_EXISTS */ || code === 3 /* INVALID_ARGUMENT */) {
      // One of them exists (a race with another process), or one cannot be added (a SQL visibility store has three
      // Text slots a namespace, which other applications may have taken): the rest are added one by one.
      const failed: Array<{ name: string; err: unknown }> = [];
      for (const [name, type] of Object.entries(missing)) {
        try {
          await add({ [name]: type });
          result.added.push(name);
        } catch (e) {
          if (grpcCode(e) === 6) result.existing.push(name);
          else failed.push({ name, err: e });
        }
      }
      // One warning for all of them: a namespace with no slot left refuses each, for one or two reasons.
      if (failed.length)
        report(
          searchAttributeWarning(
            failed.map((f) => f.name),
            namespace,
            failed.map((f) => f.err),
            missing,
          ),
        );
    } else {
      report(searchAttributeWarning(Object.keys(missing), namespace, [err], missing));
    }
  }
  return result;
}

// The CLI's spelling of each type (`--type Text`).
const CLI_TYPE: Record<string, string> = { keywordlist: 'KeywordList' };
const cliType = (n: number | undefined) => {
  const t = n === undefined ? 'keyword' : typeName(n);
  return CLI_TYPE[t] ?? t.charAt(0).toUpperCase() + t.slice(1);
};

/** The stock CLI's command that adds attribute `name` (of Hermes' own, unless `type` says otherwise). */
export function searchAttributeCommand(namespace: string, name: string, type: number | undefined = knownType(name)): string {
  return `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${cliType(type)}`;
}

function knownType(name: string): number | undefined {
  const t = SEARCH_ATTRIBUTE_TYPES[name];
  return t === undefined ? undefined : indexedValueType(t);
}

function searchAttributeWarning(names: string[], namespace: string, errs: unknown[], types: Record<string, number>): string {
  const reasons = errs.map((err) => {
    const code = grpcCode(err);
    return code === 7 || code === 16 ? 'permission denied' : (err as Error).message;
  });
  const why = [...new Set(reasons)].join('; ');
  return (
    `hermes: could not register search attribute(s) ${names.join(', ')} in namespace ${namespace} (${why}). ` +
    `Conversations still run without them, but filtering and search by them will not work until an admin runs: ` +
    names.map((n) => searchAttributeCommand(namespace, n, types[n])).join(' ; ')
  );
}
