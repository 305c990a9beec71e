/**
 * The user's calendar: "today", streak days and period boundaries are counted in the user's IANA time
 * zone (profile, else the request's X-Timezone, else UTC). The zone rules (DST, 30/45-minute offsets)
 * come from Intl, never from hand-written tables.
 */
export const UTC = 'UTC';

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** A usable IANA zone name (Intl knows it). */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The first usable zone of the candidates (profile, then header), else UTC. */
export const zoneOf = (...candidates: unknown[]): string =>
  (candidates.find((z) => isTimeZone(z)) as string | undefined) ?? UTC;

function wallClock(at: Date, zone: string) {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(at))
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { y: p.year!, m: p.month!, d: p.day!, h: p.hour!, min: p.minute!, s: p.second! };
}

/** The zone's offset from UTC at an instant, in ms (e.g. +5:45 for Asia/Kathmandu). */
function offsetMs(at: Date, zone: string): number {
  const w = wallClock(at, zone);
  const asUtc = Date.UTC(w.y, w.m - 1, w.d, w.h, w.min, w.s);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

const pad = (n: number, l = 2) => String(n).padStart(l, '0');

/** The calendar day (YYYY-MM-DD) of an instant in the zone. */
export function dayIn(at: Date, zone: string): string {
  const w = wallClock(at, zone);
  return `${pad(w.y, 4)}-${pad(w.m)}-${pad(w.d)}`;
}

/** The day `n` calendar days after `day` (calendar arithmetic: a DST day is still one day). */
export function plusDays(day: string, n: number): string {
  const t = Date.parse(`${day}T00:00:00Z`) + n * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/** The first of the month `n` months after `day`'s month. */
export function plusMonths(day: string, n: number): string {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 + n, 1)).toISOString().slice(0, 10);
}

/**
 * The instant a local day begins in the zone. Midnight that does not exist (a DST jump at 00:00) is
 * the first instant of the day that does.
 */
export function startOfDay(day: string, zone: string): Date {
  const wall = Date.parse(`${day}T00:00:00Z`);
  // two passes: the offset at the guessed instant may differ from the offset at local midnight
  let t = wall - offsetMs(new Date(wall), zone);
  t = wall - offsetMs(new Date(t), zone);
  if (dayIn(new Date(t), zone) < day) t = wall - offsetMs(new Date(t - 3 * 3600_000), zone);
  return new Date(t);
}

/** The last millisecond of the local day. */
export const endOfDay = (day: string, zone: string) =>
  new Date(startOfDay(plusDays(day, 1), zone).getTime() - 1);

/** Whole calendar days from one day to another. */
export const daysBetweenDays = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/**
 * The instant the zone's clocks show `time` ("HH:MM") on `day`. A time the day skips (the hour a DST
 * change jumps over) is moved on by the jump, so 02:30 on a spring-forward day is 03:30; a time the
 * day shows twice (the hour repeated in autumn) is its first showing.
 */
export function instantAt(day: string, time: string, zone: string): Date {
  const wall = Date.parse(`${day}T${time}:00Z`);
  let t = wall - offsetMs(new Date(wall), zone);
  t = wall - offsetMs(new Date(t), zone);
  const w = wallClock(new Date(t), zone);
  if (`${pad(w.h)}:${pad(w.min)}` !== time || dayIn(new Date(t), zone) !== day)
    // skipped: counted on from the offset in force before the jump
    t = wall - offsetMs(new Date(t - 3 * 3600_000), zone);
  // repeated: the earlier instant, under the offset before the change, if it shows the same time
  const earlier = wall - offsetMs(new Date(t - 3 * 3600_000), zone);
  if (earlier < t && dayIn(new Date(earlier), zone) === day) {
    const e = wallClock(new Date(earlier), zone);
    if (`${pad(e.h)}:${pad(e.min)}` === time) t = earlier;
  }
  return new Date(t);
}

/** The first instant strictly after `after` at which the zone's clocks show `time` ("HH:MM"). */
export function nextTimeOfDay(after: Date, time: string, zone: string): Date {
  const today = dayIn(after, zone);
  for (const day of [plusDays(today, -1), today, plusDays(today, 1), plusDays(today, 2)]) {
    const at = instantAt(day, time, zone);
    if (at.getTime() > after.getTime()) return at;
  }
  return instantAt(plusDays(today, 2), time, zone);
}
