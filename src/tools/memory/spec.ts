// The `memory` tool: durable notes that outlive the conversation and are shared by every conversation of the
// same memory scope (src/workflows/memory.ts). Workflow-safe: spec only; the handler (handler.ts beside it)
// runs in the tool activity with the worker's Temporal client.
import { z } from 'zod';
import { defineTool } from '../spec';

export const memorySpec = defineTool({
  name: 'memory',
  description:
    'Saves, corrects or reads durable memory that later conversations see in their system prompt. Two stores: "notes" ' +
    '(your own notes: facts about the environment, conventions, lessons learned) and "user" (who the user is, their ' +
    'preferences). add saves a new entry; replace and remove find one entry by a unique part of its text (`match`); ' +
    'read lists a store. Keep entries short and durable (no task progress); each store has a character limit, and a ' +
    'write over it is refused with the entries listed so you can consolidate. Returns the outcome and the characters used.',
  schema: () =>
    z.object({
      action: z.enum(['add', 'replace', 'remove', 'read']).describe('add a new entry, replace or remove an existing one, or read the store'),
      store: z.enum(['notes', 'user']).describe('"notes": your notes; "user": the user profile'),
      text: z.string().max(2_000).optional().describe('The entry to save (add, replace): one self-contained fact'),
      match: z.string().max(2_000).optional().describe('A unique part of the entry to replace or remove'),
    }),
  concurrency: 'write',
  // A retried write carries the same update id, so the memory workflow applies it once.
  idempotent: true,
  cluster: true,
});
