// `web_fetch`: GETs an http(s) URL and returns it as text. Workflow-safe: the spec only; handler.ts beside it
// fetches in the tool activity, with address-policy.ts and response-body.ts.
import { z } from 'zod';
import { defineTool } from '../spec';

export const webFetchSpec = defineTool({
  name: 'web_fetch',
  description:
    'Fetches an http(s) URL with GET and returns its final URL, title and content as text: HTML reduced to readable text ' +
    '(links as "text [absolute url]"), JSON, XML and other text as they are; binary content is refused. Follows up to 5 ' +
    'redirects; reads at most a size cap (2 MB by default) and gives up after a time limit (20 s by default). Loopback, private and link-local addresses are refused ' +
    'unless the worker allows them. An HTTP error comes back as its status and the start of its body.',
  // The argument is checked by the handler (http/https, a host): string formats are not allowed in workflow schemas.
  schema: () => z.object({ url: z.string().min(1).describe('Absolute http:// or https:// URL to fetch, e.g. "https://example.com/docs".') }),
  concurrency: 'read',
  idempotent: true,
});
