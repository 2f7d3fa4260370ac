// A log line for a person at a terminal: `12:03:04.512 INFO  message  key=value …`, from the JSON line pino wrote
// (already redacted). Anything that is not a JSON object is passed through as it is.
const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

export function prettyLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) return line;
  const { level, time, msg, ...rest } = rec;
  const when = typeof time === 'number' ? new Date(time).toISOString().slice(11, 23) : '';
  const name = (typeof level === 'number' && LEVEL_NAMES[level]) || (typeof level === 'string' ? level : '');
  const fields = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${when} ${name.padEnd(5)} ${typeof msg === 'string' ? msg : ''}${fields ? `  ${fields}` : ''}\n`;
}
