import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // src/**: a tool's unit tests sit beside it (src/tools/<tool>/<tool>.test.ts).
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: two test files at a time, each with its own workers and task queues on one shared server.
    maxWorkers: 2,
    pool: 'forks',
  },
});
