import { z } from 'zod';
import { grpcCallersEnv, serviceEnv } from '@lingua/bootstrap';
import { env, loadConfig, parseConfig } from '@lingua/config';

/** flashcards: every variable it reads (see README and .env.example); defaults run locally with no setup. */
export const flashcardsEnv = serviceEnv('flashcards', { http: 3002, grpc: 15052 });
/** gRPC call identity: the public keys of the callers flashcards verifies. */
export const flashcardsGrpcCallersEnv = grpcCallersEnv('flashcards');

/** Variables of the flashcards service itself. */
export const flashcardsOwnEnv = z.object({
  /**
   * Group B only: anonymous callers act as one fixed test user (spec, Authentication 13). `npm start`
   * (the development setting) turns it on; with NODE_ENV=production the service refuses to start.
   */
  FLASHCARDS_DEV_ANONYMOUS_USER: env.bool(false),
  FLASHCARDS_DEV_USER_ID: z.guid().default('00000000-0000-4000-8000-000000000001'),
  /** The due read model in Redis (see src/data-access/due-index.ts); false = due queries go to MongoDB. */
  FLASHCARDS_DUE_INDEX: env.bool(true),
  /**
   * A user's index lives this many seconds after it was built, whatever the writes since (then it is
   * rebuilt from MongoDB on the next read): the bound on how long a write it missed can show.
   */
  FLASHCARDS_DUE_INDEX_TTL_S: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .default(3600),
  /** A user's card counters are recounted from the cards when older than this many seconds (ADR 0011). */
  FLASHCARDS_CARD_COUNTERS_MAX_AGE_S: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .default(86_400),
  /**
   * A due answer is checked against the database (the shown cards' versions); a card this process
   * found right less than this many ms ago, at the version the index still holds, is not asked again.
   * 0 = every answer is checked.
   */
  FLASHCARDS_DUE_INDEX_CHECK_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  /** How long a due read waits for another request's rebuild before answering from MongoDB. */
  FLASHCARDS_DUE_INDEX_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(30_000),
  /** false: this replica decides no study reminders (another does; ADR 0028). */
  FLASHCARDS_REMINDERS: env.bool(true),
  /** How often the reminder scheduler looks for due reminders (ms). */
  FLASHCARDS_REMINDER_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(5_000),
  /** Reminders decided at once by one replica. */
  FLASHCARDS_REMINDER_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(32),
  /** Share (0..1) of requests given the full access log; the others log only failures (4xx, 5xx). */
  FLASHCARDS_ACCESS_LOG_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(1),
});

/** Checks only: the dev anonymous mode is refused in production. */
export const flashcardsDevModeGuard = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    FLASHCARDS_DEV_ANONYMOUS_USER: env.bool(false),
  })
  .refine((c) => !(c.FLASHCARDS_DEV_ANONYMOUS_USER && c.NODE_ENV === 'production'), {
    path: ['FLASHCARDS_DEV_ANONYMOUS_USER'],
    message: 'must not be true when NODE_ENV=production (anonymous callers would act as the dev user)',
  });

const readServiceConfig = (read: typeof parseConfig, source: Record<string, string | undefined>) => {
  const own = read(flashcardsOwnEnv, source);
  const config = {
    ...read(flashcardsEnv, source),
    devAnonymousUser: own.FLASHCARDS_DEV_ANONYMOUS_USER,
    devUserId: own.FLASHCARDS_DEV_USER_ID,
    accessLogSampleRate: own.FLASHCARDS_ACCESS_LOG_SAMPLE_RATE,
    dueIndex: {
      enabled: own.FLASHCARDS_DUE_INDEX,
      ttlSeconds: own.FLASHCARDS_DUE_INDEX_TTL_S,
      waitMs: own.FLASHCARDS_DUE_INDEX_WAIT_MS,
      checkMs: own.FLASHCARDS_DUE_INDEX_CHECK_MS,
    },
    cardCountersMaxAgeMs: own.FLASHCARDS_CARD_COUNTERS_MAX_AGE_S * 1000,
    reminders: {
      enabled: own.FLASHCARDS_REMINDERS,
      pollMs: own.FLASHCARDS_REMINDER_POLL_MS,
      concurrency: own.FLASHCARDS_REMINDER_CONCURRENCY,
    },
  };
  read(flashcardsDevModeGuard, source);
  return { ...config, grpc: read(flashcardsGrpcCallersEnv, source) };
};

/** Exits 1 naming the variable on a bad value, like every service's loadServiceConfig. */
export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) =>
  readServiceConfig(loadConfig, source);
/** The same, throwing a ConfigError instead of exiting (tests). */
export const parseServiceConfig = (source: Record<string, string | undefined>) =>
  readServiceConfig(parseConfig, source);
export type FlashcardsConfig = ReturnType<typeof loadServiceConfig>;
