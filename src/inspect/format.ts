// Plain-text rendering for `hermes inspect`.
import type { ModelView, StepRow } from './step-context';
import { textTable } from '../shared/text-table';

export function formatRows(rows: StepRow[]): string {
  const head = ['step', 'run', 'kind', 'name', 'status', 'tries', 'ms', 'bytes in', 'bytes out'];
  const body = rows.map((r) => [
    String(r.step),
    String(r.run),
    r.kind,
    r.name,
    r.status,
    String(r.attempts),
    r.durationMs === null ? '-' : String(r.durationMs),
    String(r.bytesIn),
    String(r.bytesOut),
  ]);
  const totalIn = rows.reduce((a, r) => a + r.bytesIn, 0);
  const totalOut = rows.reduce((a, r) => a + r.bytesOut, 0);
  return [textTable(head, body), '', `${rows.length} activities · ${totalIn} bytes in · ${totalOut} bytes out`, ''].join('\n');
}

export function formatModelView(v: ModelView): string {
  const out = [
    `model step ${v.step} · ${v.name} · profile ${v.profile} · context version ${v.contextVersion}${v.rebuilt ? ' (since pruned; rebuilt from the history, digest verified)' : v.archived ? ' (since compressed; as the run kept it, digest verified)' : ''} · ${v.messages.length} messages`,
    `tools: ${v.tools.length ? v.tools.map((t) => t.function.name).join(', ') : '(none)'}`,
    '',
  ];
  v.messages.forEach((m, i) => {
    const who = m.role === 'tool' ? `tool ${m.tool_call_id}` : m.role;
    out.push(`--- [${i}] ${who}`);
    if (m.content) out.push(m.content);
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) out.push(`→ ${c.id} ${c.function.name}(${c.function.arguments})`);
  });
  if (v.reasoning) {
    const excerpt = v.reasoning.text.length < v.reasoning.chars ? `excerpt of ${v.reasoning.chars} characters` : `${v.reasoning.chars} characters`;
    out.push(`--- reasoning of the reply to this step (${v.reasoning.tokens} tokens, ${excerpt}; never sent back to the model)`, v.reasoning.text);
  }
  out.push('');
  return out.join('\n');
}
