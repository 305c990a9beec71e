/** What the AI use cases need from outside the domain; implemented in data-access, wired in start.ts. */

export interface Entitlements {
  isPremium: boolean;
  /** false when the subscriptions service could not be asked and the user was treated as free */
  verified: boolean;
}

export interface EntitlementsSource {
  forUser(userId: string): Promise<Entitlements>;
  close(): void;
}

/** The languages on a user's profile (identity), as ISO 639-1 codes; absent when not named. */
export interface ProfileLanguages {
  native?: string;
  preferred?: string;
}

export interface ProfileLanguagesSource {
  /** {} when the user named none, is unknown, or identity could not be asked (defaults then apply) */
  forUser(userId: string): Promise<ProfileLanguages>;
  close(): void;
}

export interface WindowState {
  allowed: boolean;
  used: number;
  /** time (ms) of the oldest look-up still in the window */
  oldestMs: number | undefined;
}

/** Per-user usage counters: a calendar-day counter and a sliding-window log. */
export interface QuotaStore {
  /** Counts one use for the day unless `limit` (negative = none) is reached. */
  reserveDaily(
    feature: string,
    userId: string,
    day: string,
    limit: number,
  ): Promise<{ allowed: boolean; used: number }>;
  /** Gives back a use that was not delivered (the provider failed). */
  releaseDaily(feature: string, userId: string, day: string): Promise<void>;
  usedDaily(feature: string, userId: string, day: string): Promise<number>;
  /** Records one use at `nowMs` unless `limit` uses (negative = none) already lie in the window. */
  takeWindow(
    feature: string,
    userId: string,
    opts: { nowMs: number; windowMs: number; limit: number; useId: string },
  ): Promise<WindowState>;
  releaseWindow(feature: string, userId: string, useId: string): Promise<void>;
  peekWindow(
    feature: string,
    userId: string,
    opts: { nowMs: number; windowMs: number },
  ): Promise<{ used: number; oldestMs: number | undefined }>;
}

/** What a cached analysis is the analysis of: the same key for the same normalised sentence. */
export interface AnalysisKey {
  provider: string;
  language: string;
  /** normalised (normaliseForCache) */
  sentence: string;
}

/** Sentence analyses kept for a while (spec: 24 hours), judged by the service clock. */
export interface AnalysisCache {
  get<T>(key: AnalysisKey, now: Date): Promise<{ value: T; cachedAt: string } | undefined>;
  set<T>(key: AnalysisKey, value: T, now: Date): Promise<void>;
}

/** Same sentence modulo spacing and Unicode form → same analysis. Case is kept: it can be the mistake. */
export function normaliseForCache(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ');
}
