import { serviceEnv } from '@lingua/bootstrap';
import { loadConfig } from '@lingua/config';

/** flashcards: every variable it reads (see .env.example); defaults run locally with no setup. */
export const flashcardsEnv = serviceEnv('flashcards', { http: 3002, grpc: 50052 });

export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(flashcardsEnv, source);
export type FlashcardsConfig = ReturnType<typeof loadServiceConfig>;
