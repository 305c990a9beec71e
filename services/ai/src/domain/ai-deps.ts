import type { Clock } from '@lingua/auth';
import type { ImageStore } from './image-store';
import type { AnalysisCache, EntitlementsSource, ProfileLanguagesSource, QuotaStore } from './ports';
import type { AiProvider } from './providers/ai-provider';

export interface AiLimits {
  generationsPerDay: number;
  imagesPerDay: number;
  lookupsPerWindow: number;
  lookupWindowMs: number;
}

/** What the AI use cases need; wired in start.ts, replaced piecewise in tests. */
export interface AiDeps {
  provider: AiProvider;
  quotas: QuotaStore;
  entitlements: EntitlementsSource;
  /** the user's own languages, the defaults of a request that names none */
  profiles: ProfileLanguagesSource;
  cache: AnalysisCache;
  images: ImageStore;
  /** Deleted accounts: a generation finishing after the deletion stores nothing. */
  deletedUsers: { isDeleted(userId: string): Promise<boolean> };
  clock: Clock;
  limits: AiLimits;
}

/** A negative limit means "unlimited" to the quota store (and in the quota response). */
export const UNLIMITED = -1;
