// `tsc --noEmit` and `eslint .` over one TypeScript program, for `npm test` (test/run.mjs). Run apart, each builds
// the whole program (every source, test and bench file with the types of its dependencies) before doing its own
// work: half of the type-aware lint's time and most of tsc's was the same parse and bind done twice. Here the
// program is built once, its diagnostics are printed as tsc prints them, and ESLint gets it as its type
// information (typescript-eslint's `programs`, in place of the config's project service). The rules and the
// files are the ones of eslint.config.mjs and tsconfig.json; `npm run typecheck` and `npm run lint` still run
// each alone. Exits 1 on a type error or a lint error (warnings are shown), 2 when the program could not be built.
import { ESLint } from 'eslint';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
// eslint.config.mjs's type-aware files: the ones tsconfig.json includes.
const TS_FILES = ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'];

function program() {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) };
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), { noEmit: true }, host);
  if (!parsed) fail([]);
  if (parsed.errors.length) fail(parsed.errors);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences });
}

const formatHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };

function fail(diagnostics) {
  process.stderr.write(`tsconfig.json could not be read\n${ts.formatDiagnostics(diagnostics, formatHost)}`);
  process.exit(2);
}

const t0 = Date.now();
const built = program();
const diagnostics = ts.getPreEmitDiagnostics(built);
if (diagnostics.length) {
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(format(diagnostics, formatHost));
  process.stdout.write(`\ntsc: ${diagnostics.length} error(s)\n`);
}
const t1 = Date.now();

const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: [{ files: TS_FILES, languageOptions: { parserOptions: { projectService: false, programs: [built] } } }],
});
let results = await eslint.lintFiles(['.']);
// A file made after the program was built (an editor's, a test's) is not in it: linted again on its own, as
// `eslint .` would (the config's project service), instead of failing as "not found in the provided programs".
const late = results.filter((r) => r.messages.some((m) => m.fatal && /not found in any of the provided program/.test(m.message)));
if (late.length) {
  const again = await new ESLint({ cwd: ROOT }).lintFiles(late.map((r) => r.filePath));
  results = [...results.filter((r) => !late.includes(r)), ...again];
}
const problems = results.reduce((n, r) => n + r.errorCount + r.warningCount, 0);
// As `eslint .`: warnings are shown, errors fail.
const errors = results.reduce((n, r) => n + r.errorCount, 0);
if (problems) process.stdout.write(await (await eslint.loadFormatter('stylish')).format(results));
const t2 = Date.now();

console.log(
  `typecheck: ${diagnostics.length} error(s) in ${((t1 - t0) / 1000).toFixed(1)} s; ` +
    `lint: ${problems} problem(s) in ${results.length} files in ${((t2 - t1) / 1000).toFixed(1)} s`,
);
process.exit(diagnostics.length || errors ? 1 : 0);
