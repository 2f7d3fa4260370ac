// A declarative HTTP tool ("API mode"): the configuration says how a tool call becomes one HTTP request and how
// the response becomes the tool result; no code. Secrets are never part of a definition: `auth` names the
// environment variable that holds the credential, and the worker reads it when it sends the request.
// Not imported by workflow code, so the schemas can be built at import and exported.
import { z } from 'zod';

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** `{name}` in the endpoint: filled from the argument of that (model-facing) name, URL-encoded. */
export const PLACEHOLDER = /\{([A-Za-z0-9_.-]+)\}/g;

const envName = z.string().refine((s) => ENV_NAME.test(s), 'expected an environment variable name (letters, digits, _)');

const authSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('bearer').describe('Authorization: Bearer <value of env>'),
    env: envName.describe('the environment variable that holds the token (its value never enters the config)'),
  }),
  z.strictObject({
    type: z.literal('header').describe('<header>: <value of env>'),
    header: z.string().refine((s) => HEADER_NAME.test(s), 'expected an HTTP header name'),
    env: envName.describe('the environment variable that holds the header value'),
  }),
]);

const circuitSchema = z.strictObject({
  failures: z.number().int().min(1).default(5).describe('consecutive failures that open the circuit'),
  cooldownMs: z.number().int().min(1).default(30_000).describe('how long an open circuit skips calls before one trial call'),
});

function endpointProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint.replace(PLACEHOLDER, 'x'));
  } catch {
    return 'expected an absolute URL (placeholders like {id} allowed)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'expected an http or https URL';
  if (url.username || url.password) return 'credentials in the URL are not allowed; use auth with an environment variable';
  return undefined;
}

export const httpToolSchema = z
  .strictObject({
    name: z.string().refine((s) => TOOL_NAME.test(s), 'expected 1-64 letters, digits, _ or -'),
    description: z.string().min(1).describe('what the tool does and what comes back, for the model'),
    parameters: z
      .record(z.string(), z.unknown())
      .refine((p) => p.type === 'object', 'expected a JSON Schema with type "object"')
      .default({ type: 'object', properties: {} })
      .describe('JSON Schema of the arguments, with the names the model sees'),
    endpoint: z
      .string()
      .superRefine((s, ctx) => {
        const problem = endpointProblem(s);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .describe('URL; {name} is replaced by the URL-encoded argument of that name'),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
    contentType: z.enum(['json', 'form']).default('json').describe('how body parameters are sent'),
    query: z.array(z.string()).optional().describe('arguments sent in the query string (default: all others for GET and DELETE)'),
    body: z.array(z.string()).optional().describe('arguments sent in the body (default: all others for POST, PUT and PATCH)'),
    paramMap: z.record(z.string(), z.string()).default({}).describe('model-facing argument name → the API field name'),
    headers: z
      .record(
        z.string().refine((s) => HEADER_NAME.test(s), 'expected an HTTP header name'),
        z.string(),
      )
      .default({})
      .describe('constant, non-secret headers (secrets go in auth)'),
    auth: authSchema.optional(),
    successStatus: z.array(z.number().int().min(100).max(599)).optional().describe('status codes that count as success (default: any 2xx)'),
    timeoutMs: z.number().int().min(1).max(600_000).default(30_000),
    select: z.array(z.string().min(1)).optional().describe('fields of a JSON response to return: dotted paths (a.b.0) or JSON pointers (/a/b/0)'),
    maxBytes: z.number().int().min(1).max(50_000_000).default(1_000_000).describe('most bytes of the response read'),
    readOnly: z.boolean().optional().describe('default: true for GET'),
    circuit: circuitSchema.default({ failures: 5, cooldownMs: 30_000 }),
  })
  .superRefine((def, ctx) => {
    const props = def.parameters.properties;
    // Names the definition refers to must be parameters the model can give (when the schema lists them).
    if (props && typeof props === 'object') {
      const known = new Set(Object.keys(props));
      const check = (names: string[], path: (string | number)[]) =>
        names.forEach((n, i) => {
          if (!known.has(n)) ctx.addIssue({ code: 'custom', path: [...path, i], message: `"${n}" is not a property of parameters` });
        });
      check(def.query ?? [], ['query']);
      check(def.body ?? [], ['body']);
      for (const key of Object.keys(def.paramMap)) {
        if (!known.has(key)) ctx.addIssue({ code: 'custom', path: ['paramMap', key], message: `"${key}" is not a property of parameters` });
      }
      for (const m of def.endpoint.matchAll(PLACEHOLDER)) {
        if (!known.has(m[1])) ctx.addIssue({ code: 'custom', path: ['endpoint'], message: `placeholder {${m[1]}} is not a property of parameters` });
      }
    }
    if (def.method === 'GET' && def.body?.length) ctx.addIssue({ code: 'custom', path: ['body'], message: 'a GET request has no body' });
  });

export const httpToolsSchema = z.array(httpToolSchema).superRefine((defs, ctx) => {
  const seen = new Set<string>();
  defs.forEach((d, i) => {
    if (seen.has(d.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate tool name "${d.name}"` });
    seen.add(d.name);
  });
});

export type HttpToolDef = z.output<typeof httpToolSchema>;
export type HttpToolInput = z.input<typeof httpToolSchema>;

/** Parsed definitions, or an Error naming every bad field (`where` prefixes the paths, e.g. "hermes.config.json: httpTools"). */
export function parseHttpTools(input: unknown, where = 'httpTools'): HttpToolDef[] {
  const parsed = httpToolsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new Error(`Invalid HTTP tool definitions in ${where}:\n${z.prettifyError(parsed.error)}`);
}
