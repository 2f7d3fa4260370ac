// One Temporal dev server and one workflow bundle for the whole run; every test gets its own task queue.
// Both the integration and the process project list this file, and vitest calls a project's global setup once
// per project (in the one main process): the first call starts the server and writes the bundle, the second
// shares them, and the last teardown stops the server.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TestProject } from 'vitest/node';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../src/shared/defaults';
import { ALL_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { buildId, cachedWorkflowBundle, installHome } from '../src/startup/bundle';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    temporalCliPath: string;
  }
}

interface Shared {
  users: number;
  ready: Promise<{ env: TestWorkflowEnvironment; provided: { temporalAddress: string; workflowBundlePath: string; temporalCliPath: string } }>;
}

const KEY = Symbol.for('hermes.test.globalSetup');
const holder = globalThis as unknown as { [KEY]?: Shared };

async function start(): Promise<Awaited<Shared['ready']>> {
  const exe = await temporalExecutable('cli', { install: true });
  const [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: exe,
        searchAttributes: ALL_SEARCH_ATTRIBUTES,
        extraArgs: ['--log-level', 'error', ...DEV_SERVER_DYNAMIC_CONFIG],
      },
    }),
    // The install's cached bundle: the `hermes` processes the tests spawn, whatever their HERMES_HOME, use it too
    // instead of bundling again (~5 s of CPU each).
    cachedWorkflowBundle(undefined, buildId(), installHome()),
  ]);
  const bundlePath = bundle.codePath;
  return {
    env,
    provided: {
      temporalAddress: env.connection.options.address,
      workflowBundlePath: bundlePath,
      temporalCliPath: exe.type === 'existing-path' ? exe.path : '',
    },
  };
}

export default async function setup(project: TestProject) {
  const shared = (holder[KEY] ??= { users: 0, ready: start() });
  shared.users++;
  const { provided } = await shared.ready;
  for (const [k, v] of Object.entries(provided)) project.provide(k as keyof typeof provided, v);
  return async () => {
    if (--shared.users > 0) return;
    delete holder[KEY];
    await (await shared.ready).env.teardown();
  };
}
