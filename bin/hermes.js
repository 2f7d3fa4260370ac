#!/usr/bin/env node
// Runs the sources without a build step: a copy compiled once per content (bin/compiled-sources.js), else the
// TypeScript itself through tsx.
const compiled = require('./compiled-sources').compiledSources();
if (!compiled) require('tsx/cjs');
const { main, UsageError } = compiled ? require(`${compiled}/cli/index.js`) : require('../src/cli/index.ts');

// node:util parseArgs rejects unknown options and bad option values with these codes: usage errors too.
const PARSE_ARGS_ERRORS = new Set(['ERR_PARSE_ARGS_UNKNOWN_OPTION', 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE', 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL']);

// A reader that goes away (`hermes status ID | head -2`) is not an error of ours: stop quietly, as other tools do.
process.stdout.on('error', (err) => {
  if (err && err.code === 'EPIPE') process.exit(0);
  throw err;
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    const usage = err instanceof UsageError || PARSE_ARGS_ERRORS.has(err && err.code);
    process.stderr.write(`hermes: ${err instanceof Error ? err.message : String(err)}\n`);
    if (usage) process.stderr.write('Run `hermes --help` for usage.\n');
    process.exit(usage ? 2 : 1);
  },
);
