// Loaded once per worker into the workflow sandbox and shared by every workflow (the bundle's preloadModules)
// instead of once per cached workflow (docs/design-notes.md, "Worker memory"). The SDK deep-freezes what a
// preloaded module exports, so zod's lazy set-up must run here, before the freeze: building one schema does it.
// An ES import, so it resolves to the same build of zod as the workflow code's imports.
import { z } from 'zod';
import { sharedInputSchema } from '../../shared/contract';
// Every workflow module that does not reach @temporalio/workflow: the credential and injection rules, tool specs,
// prompt texts, session summaries, the loop's rules and state classes. Shared, a cached conversation costs only its
// own state (bench/memory-only.ts, 300 idle chats: 548 KiB each with zod and the contract alone shared, 333-403 KiB
// with these). What may be shared: no import of @temporalio/workflow (its per-workflow modules would be frozen with
// it), no module state other than memos of pure functions, no exported regex (zod and `/g` replaces write its
// lastIndex) and no exported object a caller mutates: the exports are frozen. test/preload.test.ts checks the
// regexes and the imports, and that no workflow module without @temporalio/workflow is left out of this list.
import '../../shared/defaults';
import '../../shared/digest';
import '../../shared/errors';
import '../../shared/failed-result';
import '../../shared/search-attributes';
import '../../shared/session-summary';
import '../../shared/skills';
import '../../shared/system-prompt';
import '../../shared/wire';
import '../../tools/registry';
import '../loop/compress-texts';
import '../loop/system-prompt-step';
import '../loop/tool-list';
import '../loop/turn-outcome';
import '../state/chat-state';
import '../state/client-tools';
import '../state/compression-state';
import '../state/human-gate';
import '../state/loop-guards';
import '../state/model-choice';
import '../state/todo';
import '../state/transcript';
import '../state/view';
import '../subagents/child-results';
import '../subagents/ledger';
import '../rules/announced';
import '../rules/context-ops';
import '../rules/echo-check';
import '../rules/repetition';
import '../rules/stop-conditions';
import '../rules/tool-plan';
import '../rules/tool-view';
import '../rules/usage';

export const warmed = z.object({ list: z.array(z.string()) });

// The contract is shared too: the workflow input schema is built here once per worker (see contract.ts).
sharedInputSchema();
