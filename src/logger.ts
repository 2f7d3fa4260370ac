// pino for the process, bridged into the Temporal runtime (whose Logger is (message, meta) where pino is
// (meta, message)).
import { DefaultLogger, Runtime, type LogLevel, type LogMetadata } from '@temporalio/worker';
import pino from 'pino';

// Logs go to stderr: stdout carries answers and `--json` results.
export const logger = pino({ level: process.env.HERMES_LOG_LEVEL ?? 'info', base: undefined }, pino.destination(2));

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
