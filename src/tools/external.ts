// The worker's catalog of tools that do not live in the workflow bundle: custom modules, declarative HTTP tools
// (src/tools/http) and MCP toolsets (src/tools/mcp), one source each. A conversation records the list it was offered (listTools, at its start);
// every version a conversation may have recorded stays here by hash, so a module edited on disk changes what new
// conversations get, never what a running one calls.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { default as Ajv2020, ValidateFunction } from 'ajv/dist/2020';
import type { ExternalToolSpec, ToolList } from '../shared/wire';
import type { ExternalTool } from './catalog';
import { logger } from '../observe/logger';
import { createHttpTools } from './http';
import type { McpToolsets } from './mcp';
import { lazyModule } from '../shared/lazy-module';
import { moduleFiles, moduleRevision, moduleStamp, loadToolModule } from './modules';
import { toolSpec, TOOLSETS } from './registry';

/** Something that produces catalog tools: custom modules here; HTTP tools and MCP servers add theirs. */
export interface ToolSource {
  /** What `hermes tools` and start-up errors name. */
  describe: string;
  load(): Promise<ExternalTool[]>;
  /** True when load() would now give something else (a module changed on disk); checked when a conversation starts. */
  stale?(): boolean;
  /** Releases what load() started (MCP server processes and connections). */
  close?(): Promise<void>;
}

export function moduleSource(entries: string[], baseDir: string): ToolSource {
  let stamp = '';
  return {
    describe: `tools.modules (${entries.join(', ')})`,
    async load() {
      stamp = moduleStamp(entries, baseDir);
      const tools: ExternalTool[] = [];
      for (const f of moduleFiles(entries, baseDir)) tools.push(...(await loadToolModule(f)));
      return tools;
    },
    stale: () => moduleStamp(entries, baseDir) !== stamp,
  };
}

export class ToolCatalog {
  private current = new Map<string, ExternalTool>();
  private perSource: ExternalTool[][] = [];
  private readonly versions = new Map<string, ExternalTool>();
  private readonly hashes = new WeakMap<ExternalTool, string>();
  private readonly lists = new Map<string, ToolList>();
  private readonly validators = new Map<string, ValidateFunction>();
  #ajv: Ajv2020 | undefined;
  /** Loaded at the first catalog tool with a schema, not with every worker (~80 modules). */
  private get ajv(): Ajv2020 {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
    return (this.#ajv ??= new (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default({ allErrors: true, strict: false }));
  }
  private loading: Promise<void> | undefined;

  constructor(
    private readonly sources: ToolSource[],
    /** Config toolsets: named groups of tool and toolset names. */
    private readonly groups: Record<string, string[]> = {},
    private readonly warn: (msg: string) => void = () => {},
  ) {}

  /** Loads every source; throws (the worker does not start) on a bad module or a clash of names. */
  async start(): Promise<void> {
    this.perSource = [];
    try {
      for (const s of this.sources) this.perSource.push(await s.load());
      this.publish();
    } catch (err) {
      // An MCP server started before a later source failed must not outlive the failed start.
      await this.close();
      throw err;
    }
  }

  /** Stops what the sources started (at worker shutdown, and after `hermes tools` has listed). */
  async close(): Promise<void> {
    await Promise.all(
      this.sources.map(async (s) => {
        try {
          await s.close?.();
        } catch (err) {
          this.warn(`${s.describe}: ${(err as Error).message}`);
        }
      }),
    );
  }

  /** Reloads sources that changed on disk; a reload that fails keeps the previous tools (and says why). */
  async refresh(): Promise<void> {
    this.loading ??= (async () => {
      const before = this.perSource;
      try {
        const next = [...before];
        for (const [i, s] of this.sources.entries()) if (s.stale?.()) next[i] = await s.load();
        this.perSource = next;
        this.publish();
      } catch (err) {
        this.perSource = before;
        this.warn(`custom tools not reloaded, the previous versions stay: ${(err as Error).message}`);
      }
    })().finally(() => (this.loading = undefined));
    await this.loading;
  }

  private publish(): void {
    const next = new Map<string, ExternalTool>();
    for (const [i, tools] of this.perSource.entries()) {
      for (const t of tools) {
        if (toolSpec(t.name) || TOOLSETS[t.name])
          throw new Error(`${this.sources[i]!.describe}: tool ${t.name} has the name of a built-in tool or toolset`);
        const other = next.get(t.name);
        if (other) throw new Error(`tool ${t.name} is defined twice: ${other.source} and ${t.source}`);
        next.set(t.name, t);
        const hash = specHash(t);
        this.hashes.set(t, hash);
        if (!this.versions.has(hash)) this.versions.set(hash, t);
      }
    }
    for (const g of Object.keys(this.groups)) {
      if (TOOLSETS[g] || toolSpec(g) || next.has(g)) throw new Error(`toolsets.${g}: the name is taken by a tool or a built-in toolset`);
    }
    this.current = next;
  }

  /** Every tool this worker offers now (for `hermes tools`). */
  tools(): ExternalTool[] {
    return [...this.current.values()];
  }

  toolsetNames(): Record<string, string[]> {
    return this.groups;
  }

  /**
   * The list a starting conversation records: every catalog tool when `names` is absent, else the ones the names
   * select (tool names, catalog toolsets, config toolsets). Names nobody knows are left for the workflow to report.
   */
  async list(names?: string[]): Promise<ToolList> {
    await this.refresh();
    const picked = new Map<string, ExternalTool>();
    const toolsets: Record<string, string[]> = {};
    const pick = (n: string, seen: Set<string>): string[] | undefined => {
      const t = this.current.get(n);
      if (t) {
        picked.set(n, t);
        return [n];
      }
      const group = this.groups[n];
      if (group && !seen.has(n)) {
        seen.add(n);
        return group.flatMap((m) => pick(m, seen) ?? TOOLSETS[m] ?? [m]);
      }
      const inSet = [...this.current.values()].filter((x) => x.toolset === n);
      if (inSet.length) {
        for (const x of inSet) picked.set(x.name, x);
        return inSet.map((x) => x.name);
      }
      return undefined;
    };
    if (!names) for (const t of this.current.values()) picked.set(t.name, t);
    else
      for (const n of names) {
        if (toolSpec(n) || TOOLSETS[n]) continue;
        const expanded = pick(n, new Set());
        if (expanded && !this.current.has(n)) toolsets[n] = [...new Set(expanded)];
      }
    const tools = [...picked.values()].map((t) => this.specOf(t));
    const digest = tools.length ? hashOf(tools.map((t) => t.hash).join(',')) : '';
    const list: ToolList = { tools, ...(Object.keys(toolsets).length ? { toolsets } : {}), digest };
    if (digest) this.lists.set(digest, list);
    return list;
  }

  specOf(t: ExternalTool): ExternalToolSpec {
    return {
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      readOnly: t.readOnly,
      ...(t.timeoutMs ? { timeoutMs: t.timeoutMs } : {}),
      toolset: t.toolset,
      hash: this.hashes.get(t) ?? specHash(t),
    };
  }

  /** A list some conversation recorded, if this worker made it (else the model activity asks the workflow). */
  recordedList(digest: string): ToolList | undefined {
    return this.lists.get(digest);
  }

  rememberList(list: ToolList): void {
    if (list.digest) this.lists.set(list.digest, list);
  }

  /** The exact version a conversation recorded; undefined when this worker does not have it. */
  version(hash: string): ExternalTool | undefined {
    return this.versions.get(hash);
  }

  currentTool(name: string): ExternalTool | undefined {
    return this.current.get(name);
  }

  /** Checks arguments against the tool's JSON Schema (the recorded one: same hash); a readable message when they fail. */
  validate(tool: ExternalTool, args: unknown): string | undefined {
    const hash = this.hashes.get(tool) ?? specHash(tool);
    let v = this.validators.get(hash);
    if (!v) {
      v = this.ajv.compile(tool.parameters);
      this.validators.set(hash, v);
    }
    if (v(args)) return undefined;
    return (v.errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}`).join('; ');
  }
}

function specHash(t: ExternalTool): string {
  const { name, description, parameters, readOnly, timeoutMs, source, toolset } = t;
  // A module's modification time too: an edit is a new version even when the definition reads the same.
  return hashOf(JSON.stringify({ name, description, parameters, readOnly, timeoutMs, source, toolset, revision: moduleRevision.get(t) }));
}

function hashOf(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 16);
}

export interface CatalogConfig {
  tools?: { modules?: string[] };
  toolsets?: Record<string, string[]>;
  httpTools?: unknown[];
  mcpServers?: Record<string, unknown>;
}

/**
 * The catalog a worker builds from the config file (undefined config: built-ins only). `env` is the worker's
 * whole environment: HTTP tools read their credential from it at each call, MCP stdio servers get what they name.
 */
export function catalogFromConfig(
  config: CatalogConfig | undefined,
  file: string | undefined,
  warn?: (msg: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): ToolCatalog {
  const sources: ToolSource[] = [];
  const baseDir = file ? path.dirname(file) : process.cwd();
  const where = (field: string) => (file ? `${file}: ${field}` : field);
  const modules = config?.tools?.modules;
  if (modules?.length) sources.push(moduleSource(modules, baseDir));
  const httpTools = config?.httpTools;
  // Checked when the catalog starts (the worker's start, `hermes tools`), naming the file and the field.
  if (httpTools?.length) sources.push({ describe: 'httpTools', load: async () => createHttpTools(httpTools, env, { where: where('httpTools') }) });
  const servers = config?.mcpServers;
  if (servers && Object.keys(servers).length) {
    let mcp: McpToolsets | undefined;
    sources.push({
      describe: 'mcpServers',
      async load() {
        // The MCP client is loaded by a worker that has MCP servers, not by every worker (~150 ms of a start).
        const { McpToolsets } = await lazyModule(
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- see src/shared/lazy-module.ts
          () => require('./mcp') as typeof import('./mcp'),
          () => import('./mcp'),
        );
        mcp = new McpToolsets(servers, {
          env,
          baseDir,
          where: where('mcpServers'),
          log: (m, meta) => logger.info(meta ?? {}, m),
          warn: (m, meta) => logger.warn(meta ?? {}, m),
        });
        await mcp.start();
        return mcp.tools();
      },
      close: async () => mcp?.close(),
    });
  }
  return new ToolCatalog(sources, config?.toolsets ?? {}, warn);
}
