// When a scheduled task fires: a cron expression (5 fields, or 6 with seconds first), a macro (@daily…), an
// interval (`every 30m`) or a one-shot (`in 45m`, an ISO timestamp), turned into a Temporal ScheduleSpec.
// cron-parser is the one parser: its fields become Temporal calendar specs, so the next fire times we show
// the model are the ones the server will use (test/schedules.test.ts checks them against the server, for
// every cron-parser extension that is accepted: `#`, `L`, `?`, `H`, seconds, steps).
import type { CalendarSpec, DayOfWeek, LooseRange, Month, ScheduleSpec } from '@temporalio/client';
import type { CronExpressionParser } from 'cron-parser';

export type When =
  | { kind: 'cron' | 'interval'; spec: ScheduleSpec; next: Date[]; timezone: string }
  | { kind: 'once'; spec: ScheduleSpec; next: Date[]; timezone: string; at: Date };

const EXAMPLES = 'e.g. "0 9 * * 1-5" (weekdays 09:00), "*/15 * * * *", "@daily", "every 2h", "in 45m", "2027-01-15T09:00"';
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MIN_INTERVAL_MS = 60_000;
/**
 * The server refuses calendar years past 2100 ("not in range [2000-2100]"), and an interval whose first firing
 * is centuries away gets no fire time at all: both are refused here, with the reason.
 */
const LAST_YEAR = 2100;
const END_OF_LAST_YEAR = Date.UTC(LAST_YEAR + 1, 0, 1);
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

/**
 * Parses `when` (the tool's `cron` argument); throws WhenError with what is wrong and a valid example.
 * `hashSeed` spreads a cron's `H` fields (Jenkins' hashed values): the task name, so every parse of one task
 * (the check, the registration, an update) picks the same minute, and different tasks spread out.
 */
export function parseWhen(when: string, timezone = 'UTC', now = new Date(), hashSeed?: string): When {
  const text = when.trim();
  if (!isTimeZone(timezone)) throw new WhenError(`unknown timezone "${timezone}": use an IANA name such as "Europe/Paris" or "UTC"`);
  const every = /^every\s+(\d+)\s*([smhd])$/i.exec(text);
  if (every) return interval(text, Number(every[1]) * UNIT_MS[every[2]!.toLowerCase()]!, timezone, now);
  const inN = /^in\s+(-?\d+)\s*([smhd])$/i.exec(text);
  if (inN) {
    const ms = Number(inN[1]) * UNIT_MS[inN[2]!.toLowerCase()]!;
    if (ms <= 0) throw new WhenError(`"${text}" is not in the future: ${EXAMPLES}`);
    if (!Number.isFinite(ms)) throw tooFar(text, Infinity, 'fire')!;
    return once(text, new Date(Math.ceil((now.getTime() + ms) / 1000) * 1000), timezone, now);
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) return once(text, parseTimestamp(text, timezone), timezone, now);
  return cron(text, timezone, now, hashSeed);
}

/** The server takes no fire time after 2100: say so instead of passing on its error (or a schedule that never fires). */
function tooFar(text: string, first: number, what: string): WhenError | undefined {
  if (first < END_OF_LAST_YEAR) return undefined;
  const year = Number.isFinite(first) ? ` in the year ${new Date(first).getUTCFullYear()}` : ' too far ahead';
  return new WhenError(`"${text}" would ${what}${year}: Temporal schedules fire up to the year ${LAST_YEAR}: ${EXAMPLES}`);
}

function interval(text: string, ms: number, timezone: string, now: Date): When {
  if (!(ms >= MIN_INTERVAL_MS)) throw new WhenError(`an interval must be at least 1 minute: ${EXAMPLES}`);
  // Temporal counts intervals from the Unix epoch: every 2h fires at 00:00, 02:00… UTC.
  const first = Math.floor(now.getTime() / ms) * ms + ms;
  const far = tooFar(text, first, 'first fire');
  if (far) throw far;
  return { kind: 'interval', spec: { intervals: [{ every: ms }], timezone }, next: [0, 1, 2].map((k) => new Date(first + k * ms)), timezone };
}

function once(text: string, at: Date, timezone: string, now: Date): When {
  if (Number.isNaN(at.getTime())) throw new WhenError(`not a valid time: ${EXAMPLES}`);
  const far = tooFar(text, at.getTime(), 'fire');
  if (far) throw far;
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

function cron(text: string, timezone: string, now: Date, hashSeed: string | undefined): When {
  const fields = text.startsWith('@') ? 5 : text.split(/\s+/).length;
  if (fields !== 5 && fields !== 6)
    throw new WhenError(`"${text}" is not a schedule: a cron expression has 5 fields (6 with seconds first): ${EXAMPLES}`);
  // cron-parser's own message for `15W` is "Invalid characters".
  const nearest = text.split(/\s+/).find((f) => /(\d|L)W/i.test(f));
  if (nearest !== undefined) throw new WhenError(`"${text}": "${nearest}": W (the nearest weekday) is not supported: ${EXAMPLES}`);
  // Loaded by the commands and activities that read a cron expression, not by every one importing this module.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const { CronExpressionParser: parser } = require('cron-parser') as typeof import('cron-parser');
  let expr;
  try {
    expr = parser.parse(text, { tz: timezone, currentDate: now, ...(hashSeed ? { hashSeed } : {}) });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    // An `L` that is not part of a name (JUL, @daily…): cron-parser's message for `L-2` is "got range NaN-2".
    const hint = /L/i.test(text.replace(/[A-Z]{3,}/gi, '')) ? `; ${L_FORMS}` : '';
    throw new WhenError(`"${text}" is not a valid cron expression (${why}${hint}): ${EXAMPLES}`);
  }
  const calendars = calendarsOf(expr.fields, text);
  return { kind: 'cron', spec: { calendars, timezone }, next: expr.take(3).map((d) => d.toDate()), timezone };
}

const L_FORMS = 'L is supported alone in the day of month (L = its last day) and after a weekday (5L = the last Friday)';

type Fields = ReturnType<typeof CronExpressionParser.parse>['fields'];
/** The day part of a calendar spec; `months` narrows the spec's months, `year` its years. */
type Days = { dayOfMonth: CalendarSpec['dayOfMonth']; dayOfWeek: CalendarSpec['dayOfWeek']; months?: number[]; year?: CalendarSpec['year'] };

const LONG_MONTHS = [1, 3, 5, 7, 8, 10, 12];
const SHORT_MONTHS = [4, 6, 9, 11];
/** The common years up to the server's last one (the ones without a February 29). */
const COMMON_YEARS: Array<LooseRange<number>> = [
  { start: 2001, end: 2097, step: 4 },
  { start: 2002, end: 2098, step: 4 },
  { start: 2003, end: 2099, step: 4 },
  2100,
];

/**
 * cron-parser's fields as Temporal calendar specs, which match when every field matches. Classic cron's day
 * rule is an OR when both day fields are restricted: one set of specs per day field. Temporal has no `L` and no
 * `#`, but a spec matches day of month AND day of week, so `1#2` (the second Monday) is days 8-14 that are a
 * Monday, `5L` (the last Friday) the last 7 days of each month that are a Friday, and `L` the last day of each
 * month — by month length, February's 29th existing in leap years only and its 28th (22nd-28th for `5L`) the
 * last in common years, which the server can name up to 2100.
 */
function calendarsOf(f: Fields, text: string): CalendarSpec[] {
  const nums = (vs: readonly unknown[]) => [...new Set(vs.filter((v): v is number => typeof v === 'number'))];
  const base = {
    second: nums(f.second.values),
    minute: f.minute.isWildcard ? ('*' as const) : nums(f.minute.values),
    hour: f.hour.isWildcard ? ('*' as const) : nums(f.hour.values),
  };
  const months = f.month.isWildcard ? undefined : nums(f.month.values);
  const days: Days[] = [];
  if (f.dayOfMonth.isWildcard && f.dayOfWeek.isWildcard) days.push({ dayOfMonth: '*', dayOfWeek: '*' });
  if (!f.dayOfMonth.isWildcard) {
    const plain = nums(f.dayOfMonth.values);
    if (plain.length) days.push({ dayOfMonth: plain, dayOfWeek: '*' });
    if (f.dayOfMonth.values.includes('L')) days.push(...lastDays(1, '*'));
  }
  if (!f.dayOfWeek.isWildcard) {
    const weekdays = nums(f.dayOfWeek.values.map((d) => (d === 7 ? 0 : d)));
    const nth = f.dayOfWeek.nthDay;
    if (weekdays.length) {
      const dayOfWeek = weekdays.map((d) => DAYS[d]!);
      // The nth of a weekday falls on days 7n-6 to 7n.
      days.push(nth > 0 ? { dayOfMonth: { start: 7 * nth - 6, end: Math.min(7 * nth, 31) }, dayOfWeek } : { dayOfMonth: '*', dayOfWeek });
    }
    for (const v of f.dayOfWeek.values) if (typeof v === 'string') days.push(...lastDays(7, DAYS[parseInt(v, 10) % 7]!));
  }
  const out: CalendarSpec[] = [];
  for (const d of days) {
    const ms = d.months ? d.months.filter((m) => !months || months.includes(m)) : months;
    if (ms?.length === 0) continue;
    out.push({
      ...base,
      dayOfMonth: d.dayOfMonth,
      dayOfWeek: d.dayOfWeek,
      month: ms ? ms.map((m) => MONTHS[m - 1]!) : '*',
      ...(d.year ? { year: d.year } : {}),
      comment: text,
    });
  }
  return out;
}

/** The last `n` days of each month (n = 1: `L`; n = 7 with a weekday: `5L`). */
function lastDays(n: number, dayOfWeek: DayOfWeek | '*'): Days[] {
  const last = (length: number) => (n === 1 ? length : { start: length - n + 1, end: length });
  return [
    { dayOfMonth: last(31), dayOfWeek, months: LONG_MONTHS },
    { dayOfMonth: last(30), dayOfWeek, months: SHORT_MONTHS },
    // Leap years: the last n days up to the 29th (which common years do not have).
    { dayOfMonth: last(29), dayOfWeek, months: [2] },
    // Common years: the 28th's window starts a day earlier.
    { dayOfMonth: 29 - n, dayOfWeek, months: [2], year: COMMON_YEARS },
  ];
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
