const DAY_MS = 86_400_000;

/** The UTC calendar day (YYYY-MM-DD) of an instant: streaks and "today" are counted in UTC. */
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);
export const startOfUtcDay = (d: Date) =>
  new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
export const addDays = (d: Date, days: number) => new Date(d.getTime() + days * DAY_MS);
export const daysBetween = (fromDay: string, toDay: string) =>
  Math.round((Date.parse(`${toDay}T00:00:00Z`) - Date.parse(`${fromDay}T00:00:00Z`)) / DAY_MS);

/** The streak after studying on `day`: +1 after yesterday, unchanged the same day, else 1. */
export function nextStreak(
  profile: { currentStreak: number; longestStreak: number; lastStudyDay: string | null },
  day: string,
): { currentStreak: number; longestStreak: number } {
  let current: number;
  if (profile.lastStudyDay === day) current = profile.currentStreak;
  else if (profile.lastStudyDay && daysBetween(profile.lastStudyDay, day) === 1)
    current = profile.currentStreak + 1;
  else current = 1;
  return { currentStreak: current, longestStreak: Math.max(profile.longestStreak, current) };
}

/** The streak as shown on `today`: it survives until a whole day passes without study. */
export function visibleStreak(
  profile: { currentStreak: number; lastStudyDay: string | null },
  today: string,
): number {
  if (!profile.lastStudyDay) return 0;
  return daysBetween(profile.lastStudyDay, today) <= 1 ? profile.currentStreak : 0;
}
