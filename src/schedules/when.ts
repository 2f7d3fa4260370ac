// When a scheduled task fires: a cron expression (5 fields, or 6 with seconds first), a macro (@daily…), an
// interval (`every 30m`) or a one-shot (`in 45m`, an ISO timestamp), turned into a Temporal ScheduleSpec.
// cron-parser is the one parser: its fields become Temporal calendar specs, so the next fire times we show
// the model are the ones the server will use (test/schedules.test.ts checks them against the server).
import type { CalendarSpec, DayOfWeek, Month, ScheduleSpec } from '@temporalio/client';
import { CronExpressionParser } from 'cron-parser';

export type When =
  | { kind: 'cron' | 'interval'; spec: ScheduleSpec; next: Date[]; timezone: string }
  | { kind: 'once'; spec: ScheduleSpec; next: Date[]; timezone: string; at: Date };

const EXAMPLES = 'e.g. "0 9 * * 1-5" (weekdays 09:00), "*/15 * * * *", "@daily", "every 2h", "in 45m", "2027-01-15T09:00"';
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MIN_INTERVAL_MS = 60_000;
const MONTHS: Month[] = ['JANUARY', 'FEBRUARY', 'MARCH', 'APRIL', 'MAY', 'JUNE', 'JULY', 'AUGUST', 'SEPTEMBER', 'OCTOBER', 'NOVEMBER', 'DECEMBER'];
const DAYS: DayOfWeek[] = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

export class WhenError extends Error {
  override name = 'WhenError';
}

/** True when the IANA time zone is known to this runtime (and so to the server's tz database, in practice). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Parses `when` (the tool's `cron` argument); throws WhenError with what is wrong and a valid example. */
export function parseWhen(when: string, timezone = 'UTC', now = new Date()): When {
  const text = when.trim();
  if (!isTimeZone(timezone)) throw new WhenError(`unknown timezone "${timezone}": use an IANA name such as "Europe/Paris" or "UTC"`);
  const every = /^every\s+(\d+)\s*([smhd])$/i.exec(text);
  if (every) return interval(Number(every[1]) * UNIT_MS[every[2]!.toLowerCase()]!, timezone, now);
  const inN = /^in\s+(-?\d+)\s*([smhd])$/i.exec(text);
  if (inN) {
    const ms = Number(inN[1]) * UNIT_MS[inN[2]!.toLowerCase()]!;
    if (ms <= 0) throw new WhenError(`"${text}" is not in the future: ${EXAMPLES}`);
    return once(new Date(Math.ceil((now.getTime() + ms) / 1000) * 1000), timezone, now);
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) return once(parseTimestamp(text, timezone), timezone, now);
  return cron(text, timezone, now);
}

function interval(ms: number, timezone: string, now: Date): When {
  if (!(ms >= MIN_INTERVAL_MS)) throw new WhenError(`an interval must be at least 1 minute: ${EXAMPLES}`);
  // Temporal counts intervals from the Unix epoch: every 2h fires at 00:00, 02:00… UTC.
  const first = Math.floor(now.getTime() / ms) * ms + ms;
  return { kind: 'interval', spec: { intervals: [{ every: ms }], timezone }, next: [0, 1, 2].map((k) => new Date(first + k * ms)), timezone };
}

function once(at: Date, timezone: string, now: Date): When {
  if (Number.isNaN(at.getTime())) throw new WhenError(`not a valid time: ${EXAMPLES}`);
  if (at.getTime() <= now.getTime()) throw new WhenError(`${at.toISOString()} is in the past: ${EXAMPLES}`);
  const calendar: CalendarSpec = {
    year: at.getUTCFullYear(),
    month: MONTHS[at.getUTCMonth()]!,
    dayOfMonth: at.getUTCDate(),
    hour: at.getUTCHours(),
    minute: at.getUTCMinutes(),
    second: at.getUTCSeconds(),
    comment: `once at ${at.toISOString()}`,
  };
  return { kind: 'once', spec: { calendars: [calendar], timezone: 'UTC' }, next: [at], timezone, at };
}

/** An ISO timestamp; without an offset it is wall-clock time in `timezone`. */
function parseTimestamp(text: string, timezone: string): Date {
  const iso = text.replace(' ', 'T');
  if (/(Z|[+-]\d{2}:?\d{2})$/i.test(iso)) return new Date(iso);
  const asUtc = new Date(`${iso}Z`);
  if (Number.isNaN(asUtc.getTime())) return asUtc;
  // Shift by the zone's offset at that moment (twice: the offset can differ across a DST change).
  let t = asUtc.getTime();
  for (let i = 0; i < 2; i++) t = asUtc.getTime() - offsetMs(new Date(t), timezone);
  return new Date(t);
}

function offsetMs(at: Date, timezone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

function cron(text: string, timezone: string, now: Date): When {
  const fields = text.startsWith('@') ? 5 : text.split(/\s+/).length;
  if (fields !== 5 && fields !== 6)
    throw new WhenError(`"${text}" is not a schedule: a cron expression has 5 fields (6 with seconds first): ${EXAMPLES}`);
  let expr;
  try {
    expr = CronExpressionParser.parse(text, { tz: timezone, currentDate: now });
  } catch (err) {
    throw new WhenError(`"${text}" is not a valid cron expression (${err instanceof Error ? err.message : String(err)}): ${EXAMPLES}`);
  }
  const f = expr.fields;
  const special = [f.dayOfMonth.values, f.dayOfWeek.values].flat().find((v) => typeof v === 'string');
  if (special !== undefined)
    throw new WhenError(`"${text}": "${special}" (last day / nth weekday) is not supported by Temporal schedules: ${EXAMPLES}`);
  const nums = (vs: readonly unknown[]) => [...new Set(vs as number[])];
  const base: CalendarSpec = {
    second: nums(f.second.values),
    minute: f.minute.isWildcard ? '*' : nums(f.minute.values),
    hour: f.hour.isWildcard ? '*' : nums(f.hour.values),
    month: f.month.isWildcard ? '*' : nums(f.month.values).map((m) => MONTHS[m - 1]!),
  };
  const dom = f.dayOfMonth.isWildcard ? '*' : nums(f.dayOfMonth.values);
  const dow = f.dayOfWeek.isWildcard ? '*' : nums(f.dayOfWeek.values.map((d) => (d === 7 ? 0 : d))).map((d) => DAYS[d as number]!);
  // Classic cron: when both day fields are restricted, a day matching either fires; Temporal's calendar
  // specs match all fields, so that is two calendars.
  const calendars: CalendarSpec[] =
    dom !== '*' && dow !== '*'
      ? [
          { ...base, dayOfMonth: dom, dayOfWeek: '*', comment: text },
          { ...base, dayOfMonth: '*', dayOfWeek: dow, comment: text },
        ]
      : [{ ...base, dayOfMonth: dom, dayOfWeek: dow, comment: text }];
  return { kind: 'cron', spec: { calendars, timezone }, next: expr.take(3).map((d) => d.toDate()), timezone };
}

/** "Mon 2026-12-07 09:00:00 Europe/Paris (08:00:00 UTC)": what the model shows the user to confirm. */
export function formatFireTime(at: Date, timezone: string): string {
  const local = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const p = (t: string) => local.find((x) => x.type === t)?.value ?? '';
  const text = `${p('weekday')} ${p('year')}-${p('month')}-${p('day')} ${p('hour')}:${p('minute')}:${p('second')} ${timezone}`;
  return timezone === 'UTC' ? text : `${text} (${at.toISOString().slice(11, 19)} UTC)`;
}
