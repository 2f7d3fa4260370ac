// An example custom tool: read-only SQL over a SQLite file in the workspace. List this file (or its directory)
// under `tools.modules` in hermes.config.json. node-sqlite3-wasm is SQLite compiled to WebAssembly with real
// file access: it installs from the registry with no native build or download step.
import { relative } from 'node:path';
import sqlite from 'node-sqlite3-wasm';

const { Database } = sqlite;

// A function default export gets defineTool and the zod that Hermes uses, so the module needs neither installed.
export default ({ defineTool, z }) =>
  defineTool({
    name: 'db_query',
    description:
      'Runs one read-only SQL SELECT (or WITH … SELECT) on a SQLite database file in the workspace and returns the rows as JSON, ' +
      'at most `limit` of them, with a note when there were more.',
    parameters: z.object({
      database: z.string().describe('Path of the SQLite file, relative to the workspace'),
      sql: z.string().describe('One SELECT statement; use ? placeholders for values'),
      params: z
        .array(z.union([z.string(), z.number(), z.null()]))
        .optional()
        .describe('Values for the ? placeholders, in order'),
      limit: z.number().int().min(1).max(1000).default(100).describe('Rows returned at most (1-1000, default 100)'),
    }),
    readOnly: true,
    timeoutMs: 30_000,
    async handler({ database, sql, params, limit }, ctx) {
      // The real path (symlinks followed): a database outside the workspace, also through a link, is refused.
      const file = await ctx.resolvePath(database);
      const rel = relative(ctx.workspace, file);
      const statement = sql.trim().replace(/;\s*$/, '');
      // A guard rail for a clear message; the read-only connection below is what actually prevents writes.
      if (!/^(select|with)\b/i.test(statement) || statement.includes(';')) throw new Error('only one SELECT statement is allowed');
      const db = new Database(file, { readOnly: true, fileMustExist: true });
      try {
        // One row more than the limit tells whether there were more, without reading the whole result.
        const rows = db.all(`SELECT * FROM (${statement}) LIMIT ?`, [...(params ?? []), limit + 1]);
        ctx.log('db_query', { database: rel, rows: Math.min(rows.length, limit) });
        const more = rows.length > limit ? `\n(more than ${limit} rows; showing the first ${limit} — raise limit or narrow the query)` : '';
        return JSON.stringify(rows.slice(0, limit), (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) + more;
      } finally {
        db.close();
      }
    },
  });
