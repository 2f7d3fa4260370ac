// pino for the process, bridged into the Temporal runtime (whose Logger is (message, meta) where pino is
// (meta, message)).
//
// Every line passes through the redactor (src/security/redact.ts) on its way out, whatever wrote it (Hermes, the
// SDK's worker and workflow loggers, core): the worker's secret-named variables and credential shapes never reach
// a log file. createHermesWorker adds its configured patterns and values with setLogRedactor.
import { DefaultLogger, Runtime, type LogLevel, type LogMetadata } from '@temporalio/worker';
import pino from 'pino';
import { Redactor } from './security/redact';

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

/** A pino logger writing redacted lines to `destination` (tests give their own stream). */
export function createLogger(destination: pino.DestinationStream, level = process.env.HERMES_LOG_LEVEL ?? 'info'): pino.Logger {
  return pino(
    {
      level,
      base: undefined,
      // The SDK logs failures as { error }: with the standard serializer they carry their message and stack.
      serializers: { error: pino.stdSerializers.err },
      hooks: { streamWrite: (line) => redactLogLine(line) },
    },
    destination,
  );
}

// Logs go to stderr: stdout carries answers and `--json` results.
export const logger = createLogger(pino.destination(2));

let installed = false;

/** Routes SDK and core logs through pino. Must run before the first Worker or NativeConnection is made. */
export function installRuntimeLogger(level: LogLevel = (process.env.HERMES_SDK_LOG_LEVEL as LogLevel) ?? 'WARN'): void {
  if (installed) return;
  installed = true;
  const bridge = new DefaultLogger(level, ({ level: l, message, meta }) => {
    const fn = l === 'ERROR' ? 'error' : l === 'WARN' ? 'warn' : l === 'INFO' ? 'info' : 'debug';
    logger[fn]((meta ?? {}) as LogMetadata, message);
  });
  try {
    Runtime.install({ logger: bridge, telemetryOptions: { logging: { filter: { core: level, other: 'WARN' }, forward: {} } } });
  } catch {
    // Already installed by someone else (e.g. a test harness): keep theirs.
  }
}
