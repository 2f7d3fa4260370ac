import { configDefaults, defineConfig } from 'vitest/config';
import { testTiers } from './test/tiers';

// Three projects (tiers), each file in the one its source says it needs (test/tiers.ts):
// `unit` needs nothing (`npm run test:unit`), `integration` the shared dev server and workflow bundle of
// test/global-setup.ts, `process` the same plus processes of its own (hermes CLIs, worker processes, crashes).
// `npm test` runs all three; `vitest run --project integration` one of them.
const tiers = testTiers(__dirname);
const serverSetup = ['test/global-setup.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: two test files at a time, each with its own workers and task queues on one shared server.
    maxWorkers: 2,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: tiers.unit, exclude: configDefaults.exclude } },
      { extends: true, test: { name: 'integration', include: tiers.integration, globalSetup: serverSetup } },
      { extends: true, test: { name: 'process', include: tiers.process, globalSetup: serverSetup } },
    ],
  },
});
