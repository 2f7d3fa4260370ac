// Loaded once per worker into the workflow sandbox and shared by every workflow (the bundle's preloadModules)
// instead of once per cached workflow (docs/design-notes.md, "Worker memory"). The SDK deep-freezes what a
// preloaded module exports, so zod's lazy set-up must run here, before the freeze: building one schema does it.
// An ES import, so it resolves to the same build of zod as the workflow code's imports.
import { z } from 'zod';
import { sharedInputSchema } from '../../shared/contract';

export const warmed = z.object({ list: z.array(z.string()) });

// The contract is shared too: the workflow input schema is built here once per worker (see contract.ts).
sharedInputSchema();
