// An eval suite: tasks with a prompt, a workspace made fresh for every run, checks of what the agent left behind,
// budgets and tools. Read from JSON or YAML and checked with zod: every problem names its field
// (`tasks[2].checks[0].path: …`). Paths are relative to the suite file.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { z } from 'zod';

/** A text matched exactly, by substring or by a regular expression (JavaScript syntax, `flags` e.g. "i", "m"). */
function matcherFields() {
  return {
    equals: z.string().optional().describe('the whole text, exactly (a file: byte for byte; output: after trimming the end)'),
    contains: z.string().optional().describe('a substring the text must contain'),
    notContains: z.string().optional().describe('a substring the text must not contain'),
    matches: z.string().optional().describe('a regular expression the text must match'),
    flags: z
      .string()
      .regex(/^[gimsuy]*$/, 'regular expression flags: g i m s u y')
      .optional(),
  };
}
type Matcher = { equals?: string; contains?: string; notContains?: string; matches?: string; flags?: string };

function validRegex(m: Matcher, ctx: z.RefinementCtx): void {
  if (m.matches === undefined) return;
  try {
    new RegExp(m.matches, m.flags);
  } catch (e) {
    ctx.addIssue({ code: 'custom', path: ['matches'], message: `not a regular expression: ${(e as Error).message}` });
  }
}
const hasMatcher = (m: Matcher) => m.equals !== undefined || m.contains !== undefined || m.notContains !== undefined || m.matches !== undefined;

function checkSchema() {
  const file = z
    .strictObject({
      type: z.literal('file'),
      path: z.string().min(1).describe('relative to the workspace'),
      /** false: the file must not exist. */
      exists: z.boolean().optional(),
      ...matcherFields(),
    })
    .superRefine(validRegex)
    .refine((c) => c.exists !== undefined || hasMatcher(c), { message: 'give exists, equals, contains, notContains or matches' });
  const command = z.strictObject({
    type: z.literal('command'),
    /** A bash command line, run in the workspace on the machine running `hermes eval`. */
    run: z.string().min(1),
    /** Expected exit code (default 0). */
    exitCode: z.number().int().optional(),
    /** Matched against stdout and stderr together. */
    output: z
      .strictObject(matcherFields())
      .superRefine(validRegex)
      .refine(hasMatcher, { message: 'give equals, contains, notContains or matches' })
      .optional(),
    timeoutSec: z.number().positive().max(600).optional(),
  });
  const answer = z
    .strictObject({ type: z.literal('answer'), ...matcherFields() })
    .superRefine(validRegex)
    .refine(hasMatcher, { message: 'give equals, contains, notContains or matches' });
  return z.discriminatedUnion('type', [file, command, answer]);
}
export type Check = z.infer<ReturnType<typeof checkSchema>>;

function budgetsSchema() {
  return z.strictObject({
    maxIterations: z.number().int().min(1).max(10_000).optional(),
    maxTokens: z.number().int().min(0).optional(),
    /** Wall-clock seconds for the conversation (its own durable timer); the eval gives up 60 s after it. */
    maxDurationSec: z
      .number()
      .positive()
      .max(24 * 3600)
      .optional(),
  });
}
export type Budgets = z.infer<ReturnType<typeof budgetsSchema>>;

function settingsFields() {
  return {
    budgets: budgetsSchema().optional(),
    /** Tools or toolsets offered (as `hermes run --tools`). */
    tools: z.array(z.string().min(1)).optional(),
    /** Model profile (the command's --model wins). */
    model: z.string().min(1).optional(),
    /** Extra system prompt text. */
    system: z.string().optional(),
  };
}

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function taskSchema() {
  return z.strictObject({
    id: z.string().regex(TASK_ID, 'letters, digits and . _ - (up to 64, starting with a letter or digit)'),
    prompt: z.string().min(1),
    /** A fixture folder, relative to the suite file, copied fresh for every run. */
    workspace: z.string().min(1).optional(),
    /** Bash command lines run in the fresh workspace (after the copy) before the conversation starts. */
    setup: z.array(z.string().min(1)).optional(),
    checks: z.array(checkSchema()).min(1),
    ...settingsFields(),
  });
}

export function suiteSchema() {
  return z
    .strictObject({
      name: z.string().regex(TASK_ID, 'letters, digits and . _ - (up to 64)').optional(),
      description: z.string().optional(),
      /** Settings every task gets unless it sets its own (budgets are merged field by field). */
      defaults: z.strictObject(settingsFields()).optional(),
      tasks: z.array(taskSchema()).min(1),
    })
    .superRefine((s, ctx) => {
      const seen = new Set<string>();
      s.tasks.forEach((t, i) => {
        if (seen.has(t.id)) ctx.addIssue({ code: 'custom', path: ['tasks', i, 'id'], message: `duplicate task id "${t.id}"` });
        seen.add(t.id);
      });
    });
}
type SuiteFile = z.infer<ReturnType<typeof suiteSchema>>;

/** A task as it runs: defaults applied, the fixture folder absolute. */
export interface EvalTask {
  id: string;
  prompt: string;
  fixture?: string;
  setup: string[];
  checks: Check[];
  budgets: Budgets;
  tools?: string[];
  model?: string;
  system?: string;
}

export interface Suite {
  name: string;
  file: string;
  tasks: EvalTask[];
}

/** Default budgets of an eval task: a run that never ends would hold the whole eval. */
export const DEFAULT_BUDGETS = { maxIterations: 20, maxDurationSec: 300 } as const;

/** Reads and checks a suite file (.json, .yaml or .yml); throws one message naming the file and every bad field. */
export function loadSuite(file: string): Suite {
  const abs = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    throw new Error(`suite ${file}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(abs) ? loadYaml(text, { filename: abs }) : JSON.parse(text);
  } catch (e) {
    throw new Error(`suite ${file}: not valid ${/\.ya?ml$/i.test(abs) ? 'YAML' : 'JSON'}: ${(e as Error).message}`);
  }
  return parseSuite(raw, abs);
}

/** Checks a parsed suite; `file` is where relative fixture paths start. */
export function parseSuite(raw: unknown, file: string): Suite {
  const r = suiteSchema().safeParse(raw);
  if (!r.success) throw new Error(`suite ${file}: ${r.error.issues.map((i) => `${fieldPath(i.path)}: ${i.message}`).join('; ')}`);
  const s: SuiteFile = r.data;
  const dir = path.dirname(file);
  const problems: string[] = [];
  const tasks = s.tasks.map((t, i): EvalTask => {
    const fixture = t.workspace === undefined ? undefined : path.resolve(dir, t.workspace);
    if (fixture && !(existsSync(fixture) && statSync(fixture).isDirectory())) {
      problems.push(`tasks[${i}].workspace: no such folder: ${fixture}`);
    }
    const d = s.defaults;
    const tools = t.tools ?? d?.tools;
    const model = t.model ?? d?.model;
    const system = t.system ?? d?.system;
    return {
      id: t.id,
      prompt: t.prompt,
      ...(fixture ? { fixture } : {}),
      setup: t.setup ?? [],
      checks: t.checks,
      budgets: { ...DEFAULT_BUDGETS, ...d?.budgets, ...t.budgets },
      ...(tools ? { tools } : {}),
      ...(model ? { model } : {}),
      ...(system ? { system } : {}),
    };
  });
  if (problems.length) throw new Error(`suite ${file}: ${problems.join('; ')}`);
  return { name: s.name ?? path.basename(file).replace(/\.(json|ya?ml)$/i, ''), file, tasks };
}

/** `tasks[2].checks[0].path`, as a person would write it. */
function fieldPath(p: ReadonlyArray<PropertyKey>): string {
  if (!p.length) return '(suite)';
  return p.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`)).join('');
}
