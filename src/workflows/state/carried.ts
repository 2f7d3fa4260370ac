// The state continue-as-new carries to the next run (the workflow's second argument): one versioned schema,
// composed of what each concern carries; its type comes from the schema. A shape check cheap enough for
// thousands of messages: the state is written by this code, but the argument can be sent by anyone (the stock
// CLI), and a wrong shape must end the conversation as BadInput instead of failing a workflow task.
import { z } from 'zod';
import type { ToolList } from '../../shared/wire';
import { chatCarry } from './chat-state';
import { clientToolsCarry } from './client-tools';
import { compressionCarry } from './compression-state';
import { eventsCarry } from './event-log';
import { humanCarry } from './human-gate';
import { meterCarry } from './meter';
import { modelCarry } from './model-choice';
import { statusCarry } from './status-board';
import { guardsCarry } from './loop-guards';
import { todoCarry } from './todo';
import { toolViewCarry } from '../rules/tool-view';
import { transcriptCarry } from './transcript';

// Schemas are built when a continued run reads its state, not at module load: every cached workflow gets its
// own instance of every module in the bundle (bench/RESULTS.md, memory per idle conversation).

/** Bumped when the shape changes; a run started on another version reads it as BadInput (docs/versioning.md). */
export const CARRIED_VERSION = 1;

const toolList = () =>
  z.custom<ToolList>((v) => {
    const t = v as Partial<ToolList> | null;
    return (
      typeof t === 'object' &&
      t !== null &&
      typeof t.digest === 'string' &&
      Array.isArray(t.tools) &&
      t.tools.every(
        (x) => typeof x?.name === 'string' && typeof x.description === 'string' && typeof x.hash === 'string' && typeof x.parameters === 'object',
      )
    );
  }, 'expected the recorded tool list ({ tools: [{ name, description, parameters, hash }], digest })');

export function carriedStateSchema() {
  return z.object({
    version: z.literal(CARRIED_VERSION),
    transcript: transcriptCarry(),
    meter: meterCarry(),
    guards: guardsCarry(),
    human: humanCarry(),
    status: statusCarry(),
    chat: chatCarry(),
    model: modelCarry(),
    todo: todoCarry(),
    compression: compressionCarry(),
    events: eventsCarry().optional(),
    toolList: toolList().optional(),
    toolView: toolViewCarry().optional(),
    clientTools: clientToolsCarry().optional(),
  });
}

export type CarriedState = z.infer<ReturnType<typeof carriedStateSchema>>;
