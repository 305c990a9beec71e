import { z } from 'zod';
import { grpcCallersEnv, grpcSigningKeyEnv, serviceEnv } from '@lingua/bootstrap';
import { env, loadConfig } from '@lingua/config';

/** ai: every variable it reads (see .env.example); defaults run locally with no setup. */
export const aiEnv = serviceEnv('ai', { http: 3004, grpc: 15054 });
/** gRPC call identity: ai signs its calls (subscriptions' entitlements) and verifies its callers'. */
export const aiGrpcEnv = grpcSigningKeyEnv('ai');
export const aiGrpcCallersEnv = grpcCallersEnv('ai');

/** The AI feature settings (documented in services/ai/README.md). */
export const aiFeatureEnv = z
  .object({
    /** `local` works offline on packaged language data; `openai` calls any OpenAI-compatible API. */
    AI_PROVIDER: z.enum(['local', 'openai']).default('local'),
    OPENAI_BASE_URL: env.url('https://api.openai.com/v1'),
    OPENAI_API_KEY: z.string().default(''),
    OPENAI_MODEL: env.string('gpt-4o-mini'),
    OPENAI_IMAGE_MODEL: env.string('dall-e-3'),
    /** One provider attempt may take this long; the whole call at most (retries + 1) times it. */
    AI_PROVIDER_TIMEOUT_MS: env.int(20_000, 100, 120_000),
    /** Retries on 429 / 5xx / connection errors, with the client's exponential back-off. */
    AI_PROVIDER_MAX_RETRIES: env.int(2, 0, 5),
    SUBSCRIPTIONS_ADDR: env.addr('127.0.0.1:15053'),
    /** identity's gRPC: the languages on a user's profile (the defaults of a request naming none). */
    IDENTITY_ADDR: env.addr('127.0.0.1:15051'),
    /** How long one replica reuses a user's profile languages before asking identity again. */
    AI_PROFILE_CACHE_MS: env.int(60_000, 0, 3_600_000),
    /** How long a request waits for identity's answer before going on without the profile's languages. */
    AI_PROFILE_DEADLINE_MS: env.int(1_000, 50, 30_000),
    /** How long a user's premium flag is reused before asking the subscriptions service again. */
    AI_ENTITLEMENT_CACHE_MS: env.int(30_000, 0, 3_600_000),
    AI_FREE_GENERATIONS_PER_DAY: env.int(50, 0, 1_000_000),
    AI_FREE_LOOKUPS_PER_WINDOW: env.int(5, 0, 1_000_000),
    AI_LOOKUP_WINDOW_MINUTES: env.int(180, 1, 10_080),
    AI_ANALYSIS_CACHE_HOURS: env.int(24, 0, 720),
    AI_FREE_IMAGES_PER_DAY: env.int(10, 0, 1_000_000),
    /** WordNet 3 database files (Debian's wordnet-base). */
    AI_WORDNET_DIR: env.string('/usr/share/wordnet'),
    /** dictd dictionaries: FreeDict `freedict-<from>-<to>.index` + `.dict.dz` (Debian's dict-freedict-*). */
    AI_DICTD_DIR: env.string('/usr/share/dictd'),
    /** Apertium's compiled language pairs (Debian's apertium-*; lt-proc from lttoolbox). */
    AI_APERTIUM_DIR: env.string('/usr/share/apertium'),
    /** Hunspell dictionaries, `<name>.aff` + `.dic` (Debian's hunspell-*). */
    AI_HUNSPELL_DIR: env.string('/usr/share/hunspell'),
    /** Read the language data in the background after start (else on first use). */
    AI_PRELOAD_LANGUAGE_DATA: env.bool(true),
  })
  // OpenAI itself needs a key; self-hosted compatible servers (vLLM, Ollama…) often do not.
  .refine(
    (c) =>
      c.AI_PROVIDER !== 'openai' ||
      c.OPENAI_API_KEY !== '' ||
      new URL(c.OPENAI_BASE_URL).hostname !== 'api.openai.com',
    {
      path: ['OPENAI_API_KEY'],
      message: 'required when AI_PROVIDER=openai with the api.openai.com base URL',
    },
  );

export type AiFeatureConfig = z.infer<typeof aiFeatureEnv>;

export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) => ({
  ...loadConfig(aiEnv, source),
  ai: loadConfig(aiFeatureEnv, source),
  grpc: { ...loadConfig(aiGrpcEnv, source), ...loadConfig(aiGrpcCallersEnv, source) },
});
export type AiConfig = ReturnType<typeof loadServiceConfig>;
