// pino for the process, bridged into the Temporal runtime (whose Logger is (message, meta) where pino is
// (meta, message)).
//
// Every line passes through the redactor (src/security/redact.ts) on its way out, whatever wrote it (Hermes, the
// SDK's worker and workflow loggers, core): the worker's secret-named variables and credential shapes never reach
// a log file. createHermesWorker adds its configured patterns and values with setLogRedactor.
import type { LogLevel, LogMetadata, MetricsExporterConfig } from '@temporalio/worker';
import { mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { prettyLine } from './pretty-log';
import { Redactor } from '../security/redact';

const LEVELS: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

let redactor: Redactor | undefined;

/** The redactor guarding the logs (default: the process's environment and the built-in shapes). */
export function setLogRedactor(r: Redactor): void {
  redactor = r;
}

function logRedactor(): Redactor {
  return (redactor ??= new Redactor({ env: process.env }));
}

/** One serialized log line, redacted; still one JSON line when a replacement would have broken the JSON. */
export function redactLogLine(line: string, r: Redactor = logRedactor()): string {
  const red = r.redact(line);
  if (red.count === 0) return line;
  try {
    JSON.parse(red.text);
    return red.text;
  } catch {
    // A configured pattern matched across a JSON string's end: redact each value instead.
    try {
      return `${JSON.stringify(r.deep(JSON.parse(line) as unknown, 32))}\n`;
    } catch {
      return red.text;
    }
  }
}

/**
 * A pino logger writing redacted lines to `destination` (tests give their own stream). `onLevel` hears the level
 * (pino's number: 40 warn, 50 error) of every line logged.
 */
export function createLogger(
  destination: pino.DestinationStream,
  level = process.env.HERMES_LOG_LEVEL ?? 'info',
  onLevel?: (level: number) => void,
): pino.Logger {
  return pino(
    {
      level,
      base: undefined,
      // The SDK logs failures as { error }: with the standard serializer they carry their message and stack.
      serializers: { error: pino.stdSerializers.err },
      hooks: {
        streamWrite: (line) => redactLogLine(line),
        logMethod(args, method, lvl) {
          onLevel?.(lvl);
          method.apply(this, args);
        },
      },
    },
    destination,
  );
}

/**
 * Where the process's log lines go: stderr (stdout carries answers and `--json` results), or a file once
 * logToFile() said so. One sink for Hermes's own lines and the SDK's, whichever logger wrote them.
 */
const sink = {
  dest: pino.destination(2) as pino.DestinationStream,
  // HERMES_LOG_FORMAT=json|pretty; default: pretty on a terminal, JSON otherwise (a file, a pipe, a collector).
  pretty: process.env.HERMES_LOG_FORMAT ? process.env.HERMES_LOG_FORMAT === 'pretty' : Boolean(process.stderr.isTTY),
  write(line: string) {
    this.dest.write(this.pretty ? prettyLine(line) : line);
  },
};

let toFile: { path: string; onFirstWarning?: (path: string) => void; warned: boolean } | undefined;

export const logger = createLogger(sink, undefined, (level) => {
  if (level < 40 || !toFile || toFile.warned) return;
  toFile.warned = true;
  toFile.onFirstWarning?.(toFile.path);
});

/** A log file past this size is moved to `<file>.1` when the next process starts writing to it. */
const MAX_LOG_BYTES = 10 * 1024 * 1024;

/**
 * Sends every log line of this process (Hermes's and the SDK's, redacted as ever) to `file`, appended, instead of
 * stderr: the CLI's embedded mode, where stderr is the run display. `onFirstWarning` hears the file's path
 * once, at the first line logged at warn or above. Returns the path.
 */
export function logToFile(file: string, onFirstWarning?: (path: string) => void): string {
  const abs = path.resolve(file);
  mkdirSync(path.dirname(abs), { recursive: true });
  try {
    if (statSync(abs).size > MAX_LOG_BYTES) renameSync(abs, `${abs}.1`);
  } catch {
    // no file yet
  }
  // Synchronous appends: a line is in the file even when the CLI exits right after writing it.
  sink.dest = pino.destination({ dest: abs, append: true, sync: true });
  sink.pretty = process.env.HERMES_LOG_FORMAT === 'pretty';
  toFile = { path: abs, onFirstWarning, warned: false };
  return abs;
}

let installed = false;

/**
 * Routes SDK and core logs through pino. Must run before the first Worker or NativeConnection is made.
 * `signals: false` (the CLI, which handles its signals itself: src/cli/signals.ts) turns off the runtime's own
 * SIGINT/SIGTERM handling, which shuts down every worker of the process but leaves the process running.
 */
export function installRuntimeLogger(
  level: LogLevel = (process.env.HERMES_SDK_LOG_LEVEL as LogLevel) ?? 'WARN',
  opts: { signals?: boolean; metrics?: MetricsExporterConfig } = {},
): void {
  if (installed) return;
  installed = true;
  // Required here: a process that never runs a worker or a replay (a client-only command) never loads the package.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DefaultLogger, Runtime } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  const sdkRank = LEVELS.indexOf(level);
  // Lines of our workflow and activity code (the SDK's `workflow` and `activity` components: the SDK itself never
  // uses them) follow HERMES_LOG_LEVEL, as Hermes's own lines do; the SDK's and core's follow `level`.
  const bridge = new DefaultLogger('TRACE', ({ level: l, message, meta }) => {
    const fn = l === 'ERROR' ? 'error' : l === 'WARN' ? 'warn' : l === 'INFO' ? 'info' : l === 'TRACE' ? 'trace' : 'debug';
    const m = (meta ?? {}) as LogMetadata;
    const ours = m.sdkComponent === 'workflow' || m.sdkComponent === 'activity';
    if (ours ? !logger.isLevelEnabled(fn) : LEVELS.indexOf(l) < sdkRank) return;
    // A replay worker's lines (`hermes replay`, the CLI's query replays): its failure is the replay's result, which
    // whoever replayed reports; the line would repeat it as JSON with a stack.
    if (typeof m.taskQueue === 'string' && m.taskQueue.startsWith('fake_replay_queue')) return;
    // An activity's task token lets whoever holds it complete the activity: it has no place in a log.
    const { taskToken: _token, ...rest } = m;
    logger[fn](rest, message);
  });
  try {
    Runtime.install({
      logger: bridge,
      telemetryOptions: {
        logging: { filter: { core: level, other: 'WARN' }, forward: {} },
        ...(opts.metrics ? { metrics: opts.metrics } : {}),
      },
      ...(opts.signals === false ? { shutdownSignals: [] } : {}),
    });
  } catch {
    // Already installed by someone else (e.g. a test harness): keep theirs.
  }
}
