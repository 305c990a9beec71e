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

/** Where the profile's card counts come from; rejects when they cannot be had in time. */
export interface CardStatsSource {
  forUser(userId: string): Promise<CardStats>;
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
  return { user, stats, degraded: stats ? [] : ['stats'] };
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

export async function updateSettings(userId: string, settings: Partial<UserSettings>, deps: IdentityDeps) {
  const updated = await deps.users.updateSettings(userId, settings);
  if (!updated) throw new AppError('NOT_FOUND', 'User not found');
  return updated.settings;
}
