import { AppError } from '@lingua/errors';
import type { IdentityDeps } from './identity-deps';
import { avatarUrl } from './upload-avatar.use-case';
import type { User, UserProfile, UserSettings } from './user';

/** A user's card counts, as the flashcards service keeps them. */
export interface CardStats {
  totalCards: number;
  dueCards: number;
  masteredCards: number;
  favoriteCards: number;
}

/**
 * Flashcards, where the profile's card counts come from and where the one daily goal is kept (ADR
 * 0025): the profile shows its goal, and the settings' goal and the profile's time zone are written
 * through to it. Rejects when flashcards cannot answer in time.
 */
export interface CardStatsSource {
  forUser(userId: string): Promise<
    CardStats & {
      dailyGoal: number;
      timezone: string | null;
      /** The reminder flashcards schedules (null: it did not say). */
      reminder: { enabled: boolean; time: string } | null;
    }
  >;
  setPreferences(
    userId: string,
    prefs: { dailyGoal?: number; timezone?: string; reminderEnabled?: boolean; reminderTime?: string },
  ): Promise<{ dailyGoal: number }>;
  close(): void;
}

/** Parts of a profile that can be missing from an answer because a dependency failed. */
export type ProfilePart = 'stats';

export interface Profile {
  user: User;
  /** null when the counts could not be had: unknown, never invented zeros. */
  stats: CardStats | null;
  /** The parts left out of this answer (empty when complete). */
  degraded: ProfilePart[];
}

/**
 * The caller's profile. The card counts are asked for alongside the user, and a failure to get them
 * leaves them out (named in `degraded`) rather than failing the profile or showing zeros as facts.
 */
export async function getProfile(userId: string, deps: IdentityDeps): Promise<Profile> {
  const [user, stats] = await Promise.all([
    deps.users.findById(userId),
    deps.cardStats.forUser(userId).catch((err: unknown) => {
      deps.logger.warn({ err, userId }, 'card stats unavailable; profile answered without them');
      return null;
    }),
  ]);
  if (!user) throw new AppError('NOT_FOUND', 'User not found');
  if (!stats) return { user, stats, degraded: ['stats'] };
  const { dailyGoal, timezone, reminder, ...counts } = stats;
  // a zone or a reminder set before flashcards kept them (or whose write-through was lost) is
  // handed over now: the app reads the profile at launch, so a reminder turned on before flashcards
  // scheduled reminders starts firing without the user setting it again
  const { reminderEnabled, reminderTime } = user.settings;
  const handover = {
    ...(user.profile.timezone && timezone !== user.profile.timezone && { timezone: user.profile.timezone }),
    ...(reminder &&
      (reminder.enabled !== reminderEnabled || (reminderEnabled && reminder.time !== reminderTime)) && {
        reminderEnabled,
        reminderTime,
      }),
  };
  if (Object.keys(handover).length > 0)
    await deps.cardStats.setPreferences(userId, handover).catch((err: unknown) => {
      deps.logger.warn({ err, userId }, 'settings not handed to flashcards; the next profile read retries');
    });
  // the goal flashcards counts progress against, whichever endpoint set it (0: a flashcards that
  // does not send it yet)
  if (dailyGoal < 1) return { user, stats: counts, degraded: [] };
  return { user: { ...user, settings: { ...user.settings, dailyGoal } }, stats: counts, degraded: [] };
}

export interface UpdateProfileInput {
  username?: string | undefined;
  displayName?: string | undefined;
  bio?: string | undefined;
  preferredLanguage?: string | undefined;
  timezone?: string | undefined;
  /** Name of an avatar already streamed in by uploadAvatar; removed again if the update fails. */
  avatar?: string | undefined;
}

/**
 * Profile fields and the avatar (uploaded beforehand by uploadAvatar). On success the previous avatar
 * is removed; on failure the new one is, so no file is left that no profile points to.
 */
export async function updateProfile(
  userId: string,
  input: UpdateProfileInput,
  deps: IdentityDeps,
): Promise<User> {
  let previous: string | undefined;
  let updated: User | undefined;
  try {
    const user = await deps.users.findById(userId);
    if (!user) throw new AppError('NOT_FOUND', 'User not found');
    if (
      input.username !== undefined &&
      input.username !== user.username &&
      (await deps.users.usernameTaken(input.username, userId))
    )
      throw new AppError('USERNAME_EXISTS', 'Username is already taken');
    const profile: Partial<UserProfile> = {
      displayName: input.displayName,
      bio: input.bio,
      preferredLanguage: input.preferredLanguage,
      timezone: input.timezone,
      ...(input.avatar && { avatarUrl: avatarUrl(input.avatar) }),
    };
    previous = user.profile.avatarUrl?.split('/').pop();
    // flashcards counts the user's days in this zone: it learns it first, so a failure leaves both
    // as they were (the request fails and can be repeated)
    if (input.timezone !== undefined && input.timezone !== user.profile.timezone)
      await deps.cardStats.setPreferences(userId, { timezone: input.timezone });
    updated = await deps.users.updateProfile(userId, {
      ...(input.username !== undefined && { username: input.username }),
      profile,
    });
    if (!updated) throw new AppError('NOT_FOUND', 'User not found');
  } catch (err) {
    if (input.avatar) await deps.avatars.remove(input.avatar).catch(() => undefined);
    throw err;
  }
  if (input.avatar && previous && previous !== input.avatar) await deps.avatars.remove(previous);
  return updated;
}

/**
 * Changes the settings. The daily goal is kept by flashcards (the one goal that stats count against,
 * also set by PUT /api/learning/settings): it is written there first, and the answer shows the goal
 * flashcards holds.
 */
export async function updateSettings(userId: string, settings: Partial<UserSettings>, deps: IdentityDeps) {
  const { dailyGoal, ...local } = settings;
  const user = await deps.users.findById(userId);
  if (!user) throw new AppError('NOT_FOUND', 'User not found');
  // flashcards keeps the reminder's schedule (ADR 0028): it learns a changed reminder first, with the
  // whole setting, so a request that fails changes neither side
  const reminder =
    (settings.reminderEnabled !== undefined && settings.reminderEnabled !== user.settings.reminderEnabled) ||
    (settings.reminderTime !== undefined && settings.reminderTime !== user.settings.reminderTime)
      ? {
          reminderEnabled: settings.reminderEnabled ?? user.settings.reminderEnabled,
          reminderTime: settings.reminderTime ?? user.settings.reminderTime,
        }
      : undefined;
  const goal =
    dailyGoal !== undefined || reminder
      ? (
          await deps.cardStats.setPreferences(userId, {
            ...(dailyGoal !== undefined && { dailyGoal }),
            ...reminder,
          })
        ).dailyGoal
      : undefined;
  // identity's copy of the goal only as the fallback a degraded profile shows
  const updated = await deps.users.updateSettings(userId, {
    ...local,
    ...(goal !== undefined && { dailyGoal: goal }),
  });
  if (!updated) throw new AppError('NOT_FOUND', 'User not found');
  if (goal !== undefined) return updated.settings;
  const held = await deps.cardStats.forUser(userId).then(
    (s) => (s.dailyGoal >= 1 ? s.dailyGoal : updated.settings.dailyGoal),
    () => updated.settings.dailyGoal,
  );
  return { ...updated.settings, dailyGoal: held };
}
