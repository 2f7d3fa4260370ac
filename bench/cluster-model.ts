// The scripted model of the cluster bench and the soak, over real HTTP (test/helpers/mock-model.ts). One stateless
// router answers every request from what the request holds, so a retried call or a conversation that moved to
// another worker gets the same reply. The prompt "cluster|<id>|<steps>|<delay ms>|<tool>" names the script: <steps>
// tool calls, each writing the marker file markers/<id>.<step>, then the answer.
//   write: write_file of the marker (the cheap step of the scale-out bench);
//   mark:  `terminal` appending a line to the marker (the soak): terminal is a run-once tool (never retried by
//          Temporal), so a marker with two lines is a tool that ran twice. When a worker died during the call the
//          model is told its outcome is unknown; then it checks and writes only if the marker is still empty, as
//          a careful model would.
import { MockModel, type RecordedRequest, type Reply } from '../test/helpers/mock-model';

export type MarkerTool = 'write' | 'mark';

export const clusterPrompt = (id: string, steps: number, delayMs: number, tool: MarkerTool) => `cluster|${id}|${steps}|${delayMs}|${tool}`;
export const markerPath = (id: string, step: number) => `markers/${id}.${step}`;

const UNKNOWN = /outcome of \w+ is unknown/;

export class ClusterModel {
  /** First arrival of each conversation's request after `k` steps: key `${id}#${k}`. */
  readonly arrivals = new Map<string, number>();
  /**
   * Marker calls whose outcome the model was told is unknown (key `${id}:${call id}`; a retried model call counts
   * once), and what the check sent for each found: `had` (the tool had run before its worker died) or `wrote`.
   */
  readonly unknown = new Set<string>();
  readonly checks = new Map<string, 'had' | 'wrote'>();
  /** Tool results that were errors of another kind (a marker tool should never fail). */
  readonly toolErrors: string[] = [];
  private constructor(readonly mock: MockModel) {}

  static async start(): Promise<ClusterModel> {
    return new ClusterModel(await MockModel.start());
  }

  get baseURL(): string {
    return this.mock.baseURL;
  }

  /** Room in the mock's script for `n` more requests (retries included: every entry is the same router). */
  allow(n: number): void {
    for (let i = 0; i < n; i++) this.mock.push(this.route);
  }

  close(): Promise<void> {
    return this.mock.close();
  }

  private route = (req: RecordedRequest): Reply => {
    const prompt = String(req.messages.find((m) => m.role === 'user')?.content ?? '');
    const last = [...req.messages].reverse().find((m) => m.role === 'tool');
    // The mock keeps every request: drop the bodies, so a long soak's bench process stays small.
    req.body = null;
    req.raw = '';
    req.messages = [];
    req.headers = {};
    const [tag, id = '', steps, delay, tool] = prompt.split('|');
    if (tag !== 'cluster') return { status: 400, body: { error: { message: `not a cluster prompt: ${prompt.slice(0, 80)}` } } };
    const delayMs = Number(delay) || 0;
    // Call ids name the step: m<k> the marker write, r<k>-<n> the check after an unknown outcome.
    const callId = String(last?.tool_call_id ?? '');
    const k = Number(/^[mr](\d+)/.exec(callId)?.[1] ?? 0);
    const content = String(last?.content ?? '');
    const unknown = last !== undefined && UNKNOWN.test(content);
    if (last && !unknown && /^Error/.test(content)) this.toolErrors.push(`${id} step ${k}: ${content.slice(0, 200)}`);
    if (unknown) this.unknown.add(`${id}:${callId}`);
    else if (callId.startsWith('r')) this.checks.set(`${id}:${callId}`, /\bhad\b/.test(content) ? 'had' : 'wrote');
    const done = unknown ? k - 1 : k;
    const key = `${id}#${done}`;
    if (!this.arrivals.has(key)) this.arrivals.set(key, req.at);
    const file = markerPath(id, done + 1);
    if (unknown) {
      return {
        toolCalls: [{ id: `r${k}-${req.n}`, name: 'terminal', arguments: { command: `[ -s ${file} ] && echo had || echo $$ >> ${file}` } }],
        delayMs,
      };
    }
    if (done >= Number(steps)) return { content: `done ${id} after ${done} steps`, delayMs };
    const call =
      tool === 'write'
        ? { id: `m${done + 1}`, name: 'write_file', arguments: { path: file, content: `${id} ${done + 1}\n` } }
        : { id: `m${done + 1}`, name: 'terminal', arguments: { command: `echo $$ >> ${file}` } };
    return { toolCalls: [call], delayMs };
  };

  /** Milliseconds from each request of a conversation to its next (one loop step), for conversations `ids`. */
  stepLatencies(ids: string[], steps: number): number[] {
    const out: number[] = [];
    for (const id of ids) {
      for (let k = 1; k <= steps; k++) {
        const a = this.arrivals.get(`${id}#${k - 1}`);
        const b = this.arrivals.get(`${id}#${k}`);
        if (a !== undefined && b !== undefined) out.push(b - a);
      }
    }
    return out;
  }
}
