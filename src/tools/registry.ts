// The built-in tools' specs, shared by the workflow (argument checks, batching, approvals) and the model
// activity (tool definitions). Workflow-safe: a plain list of the tool folders' spec modules, no handler and no
// I/O; the activity side is handler-registry.ts.
import { z } from 'zod';
import { clarifySpec } from './clarify/spec';
import { DELEGATE_TASK, delegateTaskSpec } from './delegate_task/spec';
import { listDirSpec } from './list_dir/spec';
import { memorySpec } from './memory/spec';
import { patchSpec } from './patch/spec';
import { readFileSpec } from './read_file/spec';
import { SCHEDULE_TOOL_SPECS, SCHEDULE_TOOLS } from './schedules/spec';
import { searchFilesSpec } from './search_files/spec';
import { SESSION_TOOL_SPECS, SESSION_TOOLS } from './sessions/spec';
import { SKILL_TOOL_SPECS, SKILL_TOOLS } from './skills/spec';
import type { ApprovalVerdict, ToolSpec } from './spec';
import { terminalSpec } from './terminal/spec';
import { todoSpec } from './todo/spec';
import { TOOL_SEARCH, toolSearchSpec } from './tool_search/spec';
import { webFetchSpec } from './web_fetch/spec';
import { writeFileSpec } from './write_file/spec';

export { DELEGATE_TASK, TOOL_SEARCH };

/** Every built-in tool, in the order a conversation that names no tools gets them. */
export const TOOL_SPECS: ToolSpec[] = [
  readFileSpec,
  writeFileSpec,
  patchSpec,
  listDirSpec,
  searchFilesSpec,
  terminalSpec,
  todoSpec,
  clarifySpec,
  delegateTaskSpec,
  ...SCHEDULE_TOOL_SPECS,
  webFetchSpec,
  memorySpec,
  ...SESSION_TOOL_SPECS,
  ...SKILL_TOOL_SPECS,
];

// tool_search is no default: a conversation gets it when some of its tools are not shown (src/workflows/rules/tool-view.ts).
const byName = new Map([...TOOL_SPECS, toolSearchSpec].map((s) => [s.name, s]));

export function toolSpec(name: string): ToolSpec | undefined {
  return byName.get(name);
}

const names = (...specs: ToolSpec[]) => specs.map((s) => s.name);

/** Named groups a caller can ask for instead of listing tools one by one. */
export const TOOLSETS: Record<string, string[]> = {
  files: names(readFileSpec, writeFileSpec, patchSpec, listDirSpec, searchFilesSpec),
  terminal: names(terminalSpec),
  agent: names(todoSpec, clarifySpec),
  /** What a small model is shown (src/workflows/rules/tool-view.ts): files without search_files, terminal, todo, clarify. */
  core: names(readFileSpec, writeFileSpec, patchSpec, listDirSpec, terminalSpec, todoSpec, clarifySpec),
  schedules: SCHEDULE_TOOLS,
  web: names(webFetchSpec),
  agents: [DELEGATE_TASK],
  memory: names(memorySpec),
  sessions: SESSION_TOOLS,
  skills: SKILL_TOOLS,
};

/** Whether a call needs a human's approval, by its tool's rule (`approval` in the spec); a tool without one runs. */
export function approvalVerdict(tool: string, args: Record<string, unknown>): ApprovalVerdict {
  return byName.get(tool)?.approval?.(args) ?? { verdict: 'allow' };
}

/** The catalog tools a conversation recorded (src/shared/wire.ts ToolList), as far as resolving names needs it. */
export interface CatalogNames {
  tools: Array<{ name: string }>;
  toolsets?: Record<string, string[]>;
}

/**
 * Expands toolset names and tool names into a list of known tool names; unknown names are reported. With the
 * worker's catalog list, its tools and toolsets are known too, and no names at all means built-ins plus catalog.
 */
export function resolveTools(names: string[] | undefined, catalog?: CatalogNames): { tools: string[]; unknown: string[] } {
  const catalogNames = catalog?.tools.map((t) => t.name) ?? [];
  if (!names) return { tools: [...TOOL_SPECS.map((s) => s.name), ...catalogNames], unknown: [] };
  const known = (m: string) => byName.has(m) || catalogNames.includes(m);
  const tools: string[] = [];
  const unknown: string[] = [];
  for (const n of names) {
    const group = catalog?.toolsets?.[n]?.flatMap((m) => TOOLSETS[m] ?? [m]).filter(known);
    const expanded = TOOLSETS[n] ?? (known(n) ? [n] : group?.length ? group : undefined);
    if (!expanded) unknown.push(n);
    else for (const t of expanded) if (!tools.includes(t)) tools.push(t);
  }
  return { tools, unknown };
}

type ToolDefinition = { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } };
const definitionCache = new Map<string, ToolDefinition[]>();

/**
 * OpenAI `tools` entries. Computed in the activity so tool schemas never enter workflow history; memoised
 * because converting zod schemas to JSON Schema costs more than the rest of a model call's bookkeeping.
 * `brief`: for a small model — each tool's one-line `brief` (when it has one) and the schema without what only a
 * validator reads (`additionalProperties`, `minLength`, bounds no argument reaches): arguments are checked again
 * by the workflow and the tool activity either way.
 */
export function toolDefinitions(names: string[], brief = false): ToolDefinition[] {
  const key = `${brief ? 'brief:' : ''}${names.join(',')}`;
  let defs = definitionCache.get(key);
  if (!defs) {
    defs = buildDefinitions(names, brief);
    definitionCache.set(key, defs);
  }
  return defs;
}

function buildDefinitions(names: string[], brief: boolean): ToolDefinition[] {
  return names.flatMap((name) => {
    const spec = byName.get(name);
    if (!spec) return [];
    const { $schema: _drop, ...parameters } = z.toJSONSchema(spec.schema) as Record<string, unknown>;
    const description = brief ? (spec.brief ?? spec.description) : spec.description;
    return [
      { type: 'function' as const, function: { name, description, parameters: brief ? trimmed(only(parameters, spec.briefParams)) : parameters } },
    ];
  });
}

/** The schema with only `keep` of its properties (all when undefined). */
function only(schema: Record<string, unknown>, keep: readonly string[] | undefined): Record<string, unknown> {
  if (!keep || !isPlainObject(schema.properties)) return schema;
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => keep.includes(k)));
  const required = Array.isArray(schema.required) ? (schema.required as string[]).filter((k) => keep.includes(k)) : undefined;
  return { ...schema, properties, ...(required ? { required } : {}) };
}

// `minimum` stays: a constrained step's grammar is built from these schemas, and without it the grammar let a 1.5B
// model write `"depth": 0`, which the tool's validator then refused.
const VALIDATOR_ONLY = new Set(['additionalProperties', 'minLength', 'exclusiveMinimum', 'maxLength', 'maxItems']);

/** A JSON schema without the keywords only a validator needs (and `maximum` at Number.MAX_SAFE_INTEGER). */
function trimmed(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (VALIDATOR_ONLY.has(k) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER)) continue;
    if (Array.isArray(v)) out[k] = v.map((x: unknown) => (isPlainObject(x) ? trimmed(x) : x));
    else if (isPlainObject(v)) out[k] = k === 'properties' ? mapValues(v, trimmed) : trimmed(v);
    else out[k] = v;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function mapValues(o: Record<string, unknown>, f: (v: Record<string, unknown>) => Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, isPlainObject(v) ? f(v) : v]));
}
