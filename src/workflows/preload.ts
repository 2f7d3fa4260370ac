// Loaded once per worker into the workflow sandbox and shared by every workflow (the bundle's preloadModules),
// instead of once per cached workflow: zod's module instances cost each workflow ~2.5 ms of CPU and a large
// share of its memory. The SDK deep-freezes what a preloaded module exports, so zod's lazy set-up (default
// locale, memoizer) must run here, before the freeze: building one schema does it. Schemas themselves are
// built later, inside workflows, and stay unfrozen (src/tools/spec.ts). An ES import, so it resolves to the
// same build of zod (index.js) as the workflow code's imports.
import { z } from 'zod';

export const warmed = z.object({ list: z.array(z.string()) });
