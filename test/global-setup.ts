// One Temporal dev server and one workflow bundle for the whole run; every test gets its own task queue.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { temporalExecutable } from '../src/server/temporal-cli';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../src/shared/defaults';
import { ALL_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { bundleOptions } from '../src/bundle';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    temporalCliPath: string;
  }
}

export default async function setup(project: TestProject) {
  const exe = await temporalExecutable('cli', { install: true });
  const [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: exe,
        searchAttributes: ALL_SEARCH_ATTRIBUTES,
        extraArgs: ['--log-level', 'error', ...DEV_SERVER_DYNAMIC_CONFIG],
      },
    }),
    bundleWorkflowCode(bundleOptions()),
  ]);
  const dir = path.resolve('.hermes/test');
  mkdirSync(dir, { recursive: true });
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('temporalAddress', env.connection.options.address);
  project.provide('workflowBundlePath', bundlePath);
  project.provide('temporalCliPath', exe.type === 'existing-path' ? exe.path : '');
  return async () => {
    await env.teardown();
  };
}
