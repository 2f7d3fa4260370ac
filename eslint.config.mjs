// ESLint flat config (eslint 9). `npm run lint` = `eslint .`; part of `npm test`.
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const ROOT = fileURLToPath(new URL('.', import.meta.url));
const TS_FILES = ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'];

// Workflow code runs in Temporal's deterministic sandbox and is bundled for it: no Node built-ins, no I/O
// packages, and no runtime import of the activity/LLM/server/CLI side of the code base. `import type` is erased
// at compile time, so it is allowed (workflows need the activity types for proxyActivities).
const WORKFLOW_SANDBOX = 'Workflow code runs in the deterministic Temporal sandbox: do the I/O in an activity.';
const nodeAndIoBans = {
  paths: builtinModules
    .filter((name) => !name.startsWith('_'))
    .map((name) => ({ name, message: `Node built-in '${name}' in workflow code. ${WORKFLOW_SANDBOX}`, allowTypeImports: true })),
  patterns: [
    {
      regex: '^node:',
      message: `Node built-in in workflow code. ${WORKFLOW_SANDBOX}`,
      allowTypeImports: true,
    },
    {
      regex: '^(openai|pino|cron-parser|luxon|@temporalio/(client|worker|activity|testing|envconfig))(/.*)?$',
      message: `I/O or non-deterministic package in workflow code. ${WORKFLOW_SANDBOX}`,
      allowTypeImports: true,
    },
  ],
};
// From src/workflows/*.ts, '../x' is src/x; from src/workflows/<layer>/*.ts, '../../x' is. Allowed at runtime: the
// pure src/shared/** and the tool registry/specs. Everything else (activities, llm, dev-server, cli, client, worker,
// tool handlers, ...) only as `import type`.
function workflowImportBans(up) {
  const prefix = '\\.\\./'.repeat(up);
  return {
    paths: nodeAndIoBans.paths,
    patterns: [
      ...nodeAndIoBans.patterns,
      {
        regex: `^${prefix}(?!(shared(/.*)?|tools/registry|tools/spec|tools/[a-z_]+/spec)$)`,
        message: `Workflow code may only import src/shared/**, src/tools/registry, src/tools/spec and src/tools/<tool>/spec at runtime (\`import type\` is fine). ${WORKFLOW_SANDBOX}`,
        allowTypeImports: true,
      },
    ],
  };
}

// The tool specs and the registry are in the workflow bundle too (src/workflows imports them). A tool folder's
// spec.ts and the pure modules it uses import at runtime only ../spec, pure files beside them (never ./handler),
// src/shared/** and src/schedules/limits; the registry only spec modules. Handlers are the activity side.
const TOOL_SPEC_SIDE = 'Tool specs are part of the workflow bundle: the I/O belongs in the handler (`import type` is fine).';
const toolFolderSpecImportBans = {
  paths: nodeAndIoBans.paths,
  patterns: [
    ...nodeAndIoBans.patterns,
    {
      regex: '^(?!(\\.\\./spec|\\./(?!handler$)[\\w-]+|\\.\\./\\.\\./shared(/[\\w-]+)+|\\.\\./\\.\\./schedules/limits)$)\\.',
      message: `A tool's spec side may only import ../spec, pure modules beside it, src/shared/** and src/schedules/limits at runtime. ${TOOL_SPEC_SIDE}`,
      allowTypeImports: true,
    },
  ],
};
const toolRegistryImportBans = {
  paths: nodeAndIoBans.paths,
  patterns: [
    ...nodeAndIoBans.patterns,
    {
      regex: '^(?!(\\./spec|\\./[a-z_]+/spec)$)\\.',
      message: `The tool registry may only import ./spec and ./<tool>/spec at runtime. ${TOOL_SPEC_SIDE}`,
      allowTypeImports: true,
    },
  ],
};

/**
 * The step seam (docs/design-notes.md, "Shape"): the transcript's messages are private to transcript.ts, and of the
 * loop only turn.ts appends to them — steps return data. Rewrites of earlier messages (compression, the memory
 * refresh, the continue-as-new prune) go through Transcript.rewrite, which bumps the context version.
 */
const transcriptAppendBan = {
  selector: "CallExpression[callee.property.name='append'][callee.object.property.name='transcript']",
  message: 'Only turn.ts appends to the transcript: return the messages from the step instead (the step seam).',
};

export default defineConfig(
  {
    ignores: ['dist/', '.hermes/', '.hermes-output/', 'coverage/', 'node_modules/', 'test/fixtures/', 'bench/peers/*/.venv/'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },

  // TypeScript sources with type information (tsconfig.json covers src/, test/, bench/).
  {
    files: TS_FILES,
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: ROOT },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Without noUncheckedIndexedAccess most `x[i]!` are "unnecessary" to the checker but document intent; no safety value.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // An async function without await still turns throws into rejections and satisfies Promise-returning
      // interfaces; dropping `async` would change behaviour.
      '@typescript-eslint/require-await': 'off',
      // `let x; ...closure reads x...; x = ...` (tests, mocks) cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'all',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },

  // Tests and benchmarks poke at JSON histories, mocks and SDK internals: `any` there is deliberate.
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },

  // The workflow sandbox.
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', workflowImportBans(1)],
      'no-restricted-syntax': ['error', transcriptAppendBan],
    },
  },
  {
    files: ['src/workflows/*/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', workflowImportBans(2)] },
  },
  {
    files: ['src/workflows/loop/turn.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },

  // The workflow-side modules of src/tools (see toolFolderSpecImportBans).
  {
    files: ['src/tools/*/spec.ts', 'src/tools/terminal/command-safety.ts', 'src/tools/terminal/shell-parse.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', toolFolderSpecImportBans] },
  },
  {
    files: ['src/tools/spec.ts', 'src/tools/registry.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', toolRegistryImportBans] },
  },

  // bin/*.js: plain CommonJS for Node, no type information.
  {
    files: ['bin/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },

  // Root config files (outside tsconfig.json): syntax-level rules only.
  {
    files: ['*.mjs', '*.mts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
  },
);
