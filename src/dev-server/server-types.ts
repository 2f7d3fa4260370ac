// What starting the embedded dev server takes and gives (src/dev-server/dev-server.ts), apart from the code so the
// SDK-download fallback (sdk-download.ts) can name them without importing the module that calls it.

export interface DevServerOptions {
  /** State directory (SQLite file, server log). Default: hermesHome(). */
  home?: string;
  /** Frontend gRPC port. Default: env HERMES_TEMPORAL_PORT or 7233. */
  port?: number;
  /** Web UI port. Default: env HERMES_UI_PORT or port + 1000. */
  uiPort?: number;
  /** Bind address. Default 127.0.0.1. */
  ip?: string;
  /** Namespace to create at launch ("default" always exists). Default 'default'. */
  namespace?: string;
  /** Search attributes to register, name → type (Text|Keyword|Int|Double|Bool|Datetime|KeywordList). */
  searchAttributes?: Record<string, string>;
  /** Extra arguments for `temporal server start-dev` (e.g. ['--dynamic-config-value', 'K=V']). */
  extraArgs?: string[];
  /** Server output. Default: `<home>/temporal-server.log`. */
  logFile?: string;
  /** SQLite file. Default: `<home>/temporal.db`. */
  dbFile?: string;
  /** Path of the `temporal` CLI. Default: requireTemporalCli({ install }). */
  executable?: string;
  /** Allow installing the CLI into `<hermesHome()>/venv` when it is missing. Default true. */
  install?: boolean;
  /** Last fallback when no CLI is found: the SDK's own download (needs internet). Default true. */
  sdkDownload?: boolean;
  /** How long to wait for the server to answer. Default 60 s. */
  startTimeoutMs?: number;
  /** Where warnings go (search attributes that could not be registered…). Default: console.warn. */
  warn?: (message: string) => void;
}

export interface DevServer {
  /** host:port of the frontend gRPC service. */
  address: string;
  namespace: string;
  uiUrl: string;
  /** True when an already running server was found on the address (stop() is then a no-op). */
  reused: boolean;
  /** Wall-clock milliseconds until the server answered (or was found running). */
  startupMs: number;
  /** Process id of the server started here (undefined when reused or started by the SDK). */
  pid?: number;
  logFile?: string;
  stop(): Promise<void>;
}
