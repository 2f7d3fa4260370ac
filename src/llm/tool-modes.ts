// Which tool-call mode a profile's next call uses, remembered per worker. `auto` starts native and turns to text
// for good (on this worker) when the endpoint rejects `tools`, or when it never returns native tool_calls while
// the model keeps writing its calls as text. `constrained` turns to `auto`'s choice, once, when the endpoint
// rejects the step schema. Other workers learn it for themselves, with one extra call each.
import type { ModelProfile } from './profiles';

/** Replies in a row recovered from text, with no native tool_calls ever seen, that turn `auto` to text mode. */
export const TEXT_STREAK_TO_SWITCH = 2;

export type WireMode = 'native' | 'text' | 'constrained';

export class ToolModes {
  private readonly text = new Set<string>();
  private readonly nativeSeen = new Set<string>();
  private readonly streak = new Map<string, number>();
  private readonly noSchema = new Set<string>();

  modeOf(p: ModelProfile): WireMode {
    if (p.toolCallMode === 'text') return 'text';
    if (p.toolCallMode === 'constrained' && !this.noSchema.has(p.name)) return 'constrained';
    return this.adaptive(p) && this.text.has(p.name) ? 'text' : 'native';
  }

  /** `auto`, or `constrained` after its endpoint refused the schema: the mode follows what the endpoint does. */
  private adaptive(p: ModelProfile): boolean {
    return p.toolCallMode === 'auto' || (p.toolCallMode === 'constrained' && this.noSchema.has(p.name));
  }

  /** The endpoint refused the step schema: a `constrained` profile uses `auto`'s modes from now on. Whether it switched. */
  schemaRejected(p: ModelProfile): boolean {
    if (p.toolCallMode !== 'constrained' || this.noSchema.has(p.name)) return false;
    this.noSchema.add(p.name);
    return true;
  }

  /** The endpoint refused `tools`: an adaptive profile uses text mode from now on. Whether it switched. */
  rejected(p: ModelProfile): boolean {
    if (!this.adaptive(p)) return false;
    this.text.add(p.name);
    return true;
  }

  /**
   * After a native-mode reply to a call that offered tools: whether an adaptive profile now switches to text
   * mode. A server that has returned native tool_calls once supports them; a model's slip is not a reason.
   */
  observe(p: ModelProfile, nativeCalls: boolean, fromText: boolean): boolean {
    if (!this.adaptive(p)) return false;
    if (nativeCalls) {
      this.nativeSeen.add(p.name);
      this.streak.delete(p.name);
      return false;
    }
    if (!fromText) {
      this.streak.delete(p.name);
      return false;
    }
    const n = (this.streak.get(p.name) ?? 0) + 1;
    this.streak.set(p.name, n);
    if (n < TEXT_STREAK_TO_SWITCH || this.nativeSeen.has(p.name)) return false;
    this.text.add(p.name);
    return true;
  }
}
