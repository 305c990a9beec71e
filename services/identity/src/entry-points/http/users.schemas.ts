import { z } from 'zod';
import { languageField, timezoneField, usernameField } from '../../domain/credential-rules';
import { PublicUser } from './auth-catalogue.schemas';

/** Group C `/api/users/*` request bodies. */
export const UpdateProfileBody = z
  .object({
    username: usernameField.optional(),
    displayName: z.string().trim().min(1).max(50).optional(),
    bio: z.string().max(500).optional(),
    preferredLanguage: languageField.optional(),
    timezone: timezoneField.optional(),
    /** The file part of a multipart request; never a JSON field. */
    avatar: z.any().optional().meta({ type: 'string', format: 'binary' }),
  })
  .strict();

export const UpdateSettingsBody = z
  .object({
    dailyGoal: z.number().int().min(1).max(1000).optional(),
    reminderEnabled: z.boolean().optional(),
    reminderTime: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Must be a time of day as HH:mm')
      .optional(),
    emailNotifications: z.boolean().optional(),
    pushNotifications: z.boolean().optional(),
    theme: z.enum(['light', 'dark', 'auto']).optional(),
    studyMode: z.enum(['flip', 'quiz', 'typing']).optional(),
  })
  .strict();

export const DeleteAccountBody = z
  .object({ password: z.string().max(1024).optional(), reason: z.string().max(500).optional() })
  .strict();

export const AvatarParams = z.object({ name: z.string().max(100) }).strict();

export const Settings = z.object({
  dailyGoal: z.number().int(),
  reminderEnabled: z.boolean(),
  reminderTime: z.string(),
  emailNotifications: z.boolean(),
  pushNotifications: z.boolean(),
  theme: z.enum(['light', 'dark', 'auto']),
  studyMode: z.enum(['flip', 'quiz', 'typing']),
});

export const ProfileData = z.object({
  user: PublicUser,
  profile: z.object({
    displayName: z.string().nullable(),
    bio: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    preferredLanguage: z.string().nullable(),
    nativeLanguage: z.string().nullable(),
    timezone: z.string().nullable(),
    settings: Settings,
  }),
  stats: z
    .object({
      totalCards: z.number().int(),
      dueCards: z.number().int(),
      masteredCards: z.number().int(),
      favoriteCards: z.number().int(),
    })
    .nullable()
    .describe(
      'card counts from the flashcards service; null when it did not answer in time (then "stats" is in degraded)',
    ),
  degraded: z
    .array(z.enum(['stats']))
    .describe(
      'parts of this profile left out because a dependency failed (null in the answer, never made up); empty when complete',
    ),
});
