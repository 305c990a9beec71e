import { AppError } from '@lingua/errors';
import type { ImageType } from '../data-access/avatar-storage';
import type { IdentityDeps } from './identity-deps';
import { POLICY } from './policies';
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

/** The image type from the file's first bytes (the declared type is the client's word, not proof). */
export function sniffImageType(data: Buffer): ImageType | undefined {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (
    data.length >= 8 &&
    data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  )
    return 'png';
  if (
    data.length >= 12 &&
    data.toString('latin1', 0, 4) === 'RIFF' &&
    data.toString('latin1', 8, 12) === 'WEBP'
  )
    return 'webp';
  return undefined;
}

export const avatarLimitFor = (role: User['role']) =>
  role === 'user' ? POLICY.avatarMaxBytes.free : POLICY.avatarMaxBytes.premium;

export interface UpdateProfileInput {
  username?: string | undefined;
  displayName?: string | undefined;
  bio?: string | undefined;
  preferredLanguage?: string | undefined;
  timezone?: string | undefined;
  avatar?: { data: Buffer } | undefined;
}

/** Profile fields and the avatar (10 MB free, 50 MB premium; JPEG, PNG or WebP by content). */
export async function updateProfile(
  userId: string,
  input: UpdateProfileInput,
  deps: IdentityDeps,
): Promise<User> {
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
  };
  let stored: string | undefined;
  if (input.avatar) {
    const limit = avatarLimitFor(user.role);
    if (input.avatar.data.length > limit)
      throw new AppError('PAYLOAD_TOO_LARGE', `Avatar must be at most ${limit / 1024 / 1024} MB`, {
        details: { maxBytes: limit },
      });
    const type = sniffImageType(input.avatar.data);
    if (!type)
      throw new AppError('VALIDATION_ERROR', 'Validation failed', {
        details: { avatar: ['Avatar must be a JPEG, PNG or WebP image'] },
      });
    stored = await deps.avatars.save(userId, input.avatar.data, type);
    profile.avatarUrl = `/api/users/avatars/${stored}`;
  }
  const updated = await deps.users.updateProfile(userId, {
    ...(input.username !== undefined && { username: input.username }),
    profile,
  });
  if (!updated) throw new AppError('NOT_FOUND', 'User not found');
  const previous = user.profile.avatarUrl?.split('/').pop();
  if (stored && previous) await deps.avatars.remove(previous);
  return updated;
}

export async function updateSettings(userId: string, settings: Partial<UserSettings>, deps: IdentityDeps) {
  const updated = await deps.users.updateSettings(userId, settings);
  if (!updated) throw new AppError('NOT_FOUND', 'User not found');
  return updated.settings;
}
