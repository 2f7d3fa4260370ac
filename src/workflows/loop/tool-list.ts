// Catalog tools (custom modules, HTTP, MCP) reach the workflow as data: a fresh conversation that wants them asks
// the worker for its list at the start (in the start's one local activity, recorded), and every later run —
// replay, continue-as-new — uses the recorded list. Built-in tools stay in the bundle, so the list holds only the catalog's specs.
import { z } from 'zod';
import type { ExternalToolSpec } from '../../shared/wire';
import type { ToolSpec } from '../../tools/spec';

/**
 * A fresh run that names no tools (it gets the built-in tools plus the whole catalog) or names some the bundle
 * does not know asks the worker for its catalog; continued runs carry their list. A sub-agent names its parent's
 * tools, so it asks for the catalog ones by name.
 */
export function wantsCatalog(start: { carried?: unknown; named: string[] | undefined; unknownTools: string[] }): boolean {
  return !start.carried && (start.named === undefined || start.unknownTools.length > 0);
}

/** A recorded catalog tool as the planner sees it: any JSON object passes here, the tool activity checks the schema. */
export function catalogToolSpec(t: ExternalToolSpec): ToolSpec {
  let schema: z.ZodType | undefined;
  return {
    name: t.name,
    description: t.description,
    get schema() {
      return (schema ??= z.record(z.string(), z.unknown()));
    },
    concurrency: t.readOnly ? 'read' : 'write',
    // Its author decides what is retried: a ToolResultError is a result, anything else thrown an outage (src/tools/catalog.ts).
    idempotent: true,
  };
}
