// Custom tool modules (`tools.modules` in the config file): each module's default export — or every export — is
// a tool from defineTool(), an array of them, or a function `({ defineTool, z }) => tool(s)`, which lets a module
// work without resolving this package (e.g. the one `hermes init` writes). Modules are imported with their
// modification time in the URL: an edited module is a new module instance for conversations started after the
// edit, while the old instance keeps serving the conversations that recorded its version.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { ToolResultError, type ExternalTool } from './catalog';
import { defineTool, TOOL_MARK, type DefinedTool } from './define';

const MODULE_EXT = /\.(mjs|js|cjs)$/;

/** The modification time of the file a module tool came from: part of its version hash (src/tools/external.ts). */
export const moduleRevision = new WeakMap<ExternalTool, number>();

/** The files a `tools.modules` list names: files as given, directories' *.mjs/*.js/*.cjs files (sorted). */
export function moduleFiles(entries: string[], baseDir: string): string[] {
  const files: string[] = [];
  for (const e of entries) {
    const p = path.resolve(baseDir, e);
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new Error(`tools.modules: ${e} does not exist (resolved to ${p})`);
    }
    if (st.isDirectory()) {
      for (const f of readdirSync(p).sort()) if (MODULE_EXT.test(f)) files.push(path.join(p, f));
    } else files.push(p);
  }
  return files;
}

/** Modification times of the files and directories a module list depends on: a change means reload. */
export function moduleStamp(entries: string[], baseDir: string): string {
  return entries
    .map((e) => path.resolve(baseDir, e))
    .flatMap((p) => {
      try {
        const st = statSync(p);
        if (!st.isDirectory()) return [`${p}@${st.mtimeMs}`];
        return [`${p}@${st.mtimeMs}`, ...readdirSync(p).map((f) => `${f}@${statSync(path.join(p, f)).mtimeMs}`)];
      } catch {
        return [`${p}@missing`];
      }
    })
    .join('|');
}

/** Imports one module and turns what it exports into tools. Throws with the file named when it exports none or a bad one. */
export async function loadToolModule(file: string): Promise<ExternalTool[]> {
  const { mtimeMs } = statSync(file);
  const mod = (await import(`${pathToFileURL(file).href}?mtime=${mtimeMs}`)) as Record<string, unknown>;
  const exported = 'default' in mod ? [mod.default] : Object.values(mod);
  const defs = exported.flatMap((x) => toDefinitions(x));
  if (defs.length === 0) throw new Error(`${file}: exports no tool (export default defineTool({ ... }))`);
  return defs.map((d) => {
    const tool = toExternal(d, file);
    moduleRevision.set(tool, mtimeMs);
    return tool;
  });
}

function toDefinitions(x: unknown): DefinedTool[] {
  if (typeof x === 'function') return toDefinitions((x as (h: unknown) => unknown)({ defineTool, z }));
  if (Array.isArray(x)) return x.flatMap(toDefinitions);
  if (x && typeof x === 'object' && (x as Record<symbol, unknown>)[TOOL_MARK]) return [x as DefinedTool];
  // A module built against another copy of this package has another defineTool: accept the same shape.
  if (x && typeof x === 'object' && 'name' in x && 'handler' in x) return [defineTool(x as DefinedTool)];
  return [];
}

function definitionSchema() {
  return z.object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
    description: z.string().min(1),
    parameters: z.custom<object>((v) => typeof v === 'object' && v !== null, 'a zod object schema or a JSON Schema object'),
    readOnly: z.boolean().optional(),
    timeoutMs: z.number().int().positive().optional(),
    handler: z.custom<(...a: unknown[]) => unknown>((v) => typeof v === 'function', 'a function'),
  });
}

function toExternal(def: DefinedTool, file: string): ExternalTool {
  const checked = definitionSchema().safeParse(def);
  if (!checked.success) {
    const where = checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`${file}: tool ${JSON.stringify(def.name)}: ${where}`);
  }
  const zodSchema = isZod(def.parameters) ? def.parameters : undefined;
  const parameters = zodSchema ? jsonSchemaOf(zodSchema, file, def.name) : (def.parameters as Record<string, unknown>);
  if (parameters.type !== 'object') throw new Error(`${file}: tool ${def.name}: parameters must describe an object (type: "object")`);
  return {
    name: def.name,
    description: def.description,
    parameters,
    readOnly: def.readOnly ?? false,
    ...(def.timeoutMs ? { timeoutMs: def.timeoutMs } : {}),
    source: `module:${file}`,
    toolset: 'custom',
    async run(args, ctx) {
      // The activity checked the arguments against the JSON Schema; zod's parse adds defaults and transforms.
      let value: unknown = args;
      if (zodSchema) {
        const parsed = zodSchema.safeParse(args);
        if (!parsed.success) throw new ToolResultError(`invalid arguments for ${def.name}: ${z.prettifyError(parsed.error)}`);
        value = parsed.data;
      }
      try {
        const out = await def.handler(value, ctx);
        return typeof out === 'string' ? out : (JSON.stringify(out, null, 2) ?? '');
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        // A module's error is the model's to read (bad SQL, no such row), not an outage to retry.
        throw new ToolResultError(err instanceof Error ? err.message : String(err));
      }
    },
  };
}

function isZod(v: unknown): v is z.ZodType {
  return typeof v === 'object' && v !== null && '_zod' in v && typeof (v as z.ZodType).safeParse === 'function';
}

function jsonSchemaOf(schema: z.ZodType, file: string, name: string): Record<string, unknown> {
  try {
    // 'input': fields with defaults are optional for the model.
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
    return rest;
  } catch (err) {
    throw new Error(`${file}: tool ${name}: parameters cannot be turned into JSON Schema: ${(err as Error).message}`);
  }
}
