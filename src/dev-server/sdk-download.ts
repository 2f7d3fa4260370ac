// The dev server's fallback when no Temporal CLI is found.
import * as path from 'node:path';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../shared/defaults';
import type { DevServer, DevServerOptions } from './server-types';
import { ensureSearchAttributes } from '../startup/register-attributes';
import { installInstructions } from './temporal-cli';

export interface SdkFallbackArgs {
  t0: number;
  home: string;
  port: number;
  uiPort: number;
  ip: string;
  namespace: string;
  searchAttributes: Record<string, string>;
  dbFile: string;
  uiUrl: string;
  opts: DevServerOptions;
  warn: (m: string) => void;
  cause: Error;
}

/** Last resort: let @temporalio/testing download the CLI (needs internet) and run start-dev with it. */
export async function startWithSdkDownload(a: SdkFallbackArgs): Promise<DevServer> {
  process.stderr.write('hermes: no Temporal CLI found; trying the SDK download from temporal.download\n');
  // Loaded lazily: @temporalio/testing pulls in the native worker runtime.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { TestWorkflowEnvironment } = require('@temporalio/testing') as typeof import('@temporalio/testing');
  let env: import('@temporalio/testing').TestWorkflowEnvironment;
  try {
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'cached-download', downloadDir: path.join(a.home, 'sdk-download') },
        dbFilename: a.dbFile,
        ip: a.ip,
        port: a.port,
        ui: true,
        uiPort: a.uiPort,
        namespace: a.namespace,
        log: { format: 'pretty', level: 'warn' },
        extraArgs: [
          ...Object.entries(a.searchAttributes).flatMap(([k, v]) => ['--search-attribute', `${k}=${v}`]),
          ...DEV_SERVER_DYNAMIC_CONFIG,
          ...(a.opts.extraArgs ?? []),
        ],
      },
    });
  } catch (err) {
    throw new Error(
      `${a.cause.message}\nThe SDK download fallback failed too: ${(err as Error).message}\n` +
        `(${installInstructions('cli').split('\n')[0]} — see above)`,
    );
  }
  try {
    await ensureSearchAttributes(env.connection, a.namespace, a.searchAttributes, a.warn);
  } catch (err) {
    await env.teardown().catch(() => {});
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    address: env.address,
    namespace: a.namespace,
    uiUrl: a.uiUrl,
    reused: false,
    startupMs: Date.now() - a.t0,
    stop: () => (stopping ??= env.teardown()),
  };
}
