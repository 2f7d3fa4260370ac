// The client's answer format (`response_format` through `hermes serve`, src/shared/client-tools.ts) on the worker:
// the client's tool definitions as the endpoint is sent them, and the check of an answer against the format —
// JSON, an object, the JSON Schema (Ajv, draft 2020-12, which reads the draft-07 schemas clients send as well).
import type { default as Ajv2020, ValidateFunction } from 'ajv/dist/2020';
import type { AnswerFormat } from '../shared/client-tools';
import type { ModelCallInput } from '../shared/wire';
import type { Definition } from './text-mode';

// Made when first needed: the CLI imports this module for `hermes inspect` too.
let instance: Ajv2020 | undefined;
// Loaded at the first answer format, not by every worker and command that imports this module (~80 modules).
const ajv = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  (instance ??= new (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default({
    strict: false,
    allErrors: false,
    validateFormats: false,
  }));
const compiled = new Map<string, ValidateFunction>();

function validator(schema: Record<string, unknown>): ValidateFunction {
  // `$schema` names a meta-schema Ajv may not hold (draft-07, 2019-09): the keywords are read all the same.
  const { $schema: _drop, ...rest } = schema;
  const key = JSON.stringify(rest);
  let v = compiled.get(key);
  if (!v) {
    v = ajv().compile(rest);
    if (compiled.size > 200) compiled.clear();
    compiled.set(key, v);
  }
  return v;
}

/** Why a JSON Schema cannot be used (`hermes serve` refuses it with a 400 before anything starts), or undefined. */
export function schemaProblem(schema: Record<string, unknown>): string | undefined {
  try {
    validator(schema);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** A reply wrapped in one code fence (```json … ```): what is inside; else the text as it is. */
function unfenced(text: string): string {
  // Only spaces before the first newline: `\s*\n` there backtracked through every blank line into the body, quadratic
  // on a fence followed by many newlines; blank lines now open the body, which trim() takes off.
  const m = /^```[A-Za-z0-9_-]*[^\S\n]*\n([\s\S]*?)\n?```$/.exec(text.trim());
  return m ? m[1]!.trim() : text.trim();
}

/**
 * An answer checked against the format: the answer as the client gets it (a code fence around the JSON taken
 * off, so the client can parse it), or why it does not fit.
 */
export function checkAnswer(text: string | null, format: AnswerFormat): { text: string } | { error: string } {
  const body = unfenced(text ?? '');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { error: `it is not JSON (${(err as Error).message.slice(0, 200)})` };
  }
  if (format.type === 'json_object') {
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? { text: body } : { error: 'it is JSON but not an object' };
  }
  const validate = validator(format.schema);
  if (validate(value)) return { text: body };
  return { error: `it does not match the schema: ${ajv().errorsText(validate.errors, { dataVar: 'answer' }).slice(0, 1_000)}` };
}

/** The client's tools of a model call as definitions, sent beside the agent's. */
export function clientDefinitions(input: ModelCallInput): Definition[] {
  return (input.clientTools ?? []).map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description ?? '', parameters: t.parameters ?? { type: 'object', properties: {} } },
  }));
}
