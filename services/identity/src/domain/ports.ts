import type { AnyDomainEvent } from '@lingua/contracts';
import type { Role, SubscriptionStatus, User, UserProfile, UserSettings } from './user';

/**
 * What the identity use cases need from storage and from outside providers. The domain owns these
 * interfaces; data-access implements them; start.ts wires the implementations in.
 */

export interface NewUser {
  id: string;
  email: string;
  username: string;
  passwordHash: string | null;
  emailVerified: boolean;
  authProvider: User['authProvider'];
  profile: Partial<UserProfile>;
  lastLoginAt: Date | null;
}

/** Accounts: plain objects out; deleted accounts are invisible. Every write is one atomic single-document update. */
export interface UserRepository {
  findById(id: string): Promise<User | undefined>;
  findByEmail(email: string): Promise<User | undefined>;
  /** The only read that returns the password hash: for verifying a password, nothing else. */
  findCredentials(
    by: { email: string } | { id: string },
  ): Promise<{ user: User; passwordHash: string | null } | undefined>;
  emailTaken(email: string): Promise<boolean>;
  usernameTaken(username: string, exceptUserId?: string): Promise<boolean>;
  /** Inserts the user and its events in one single-document write (outbox). */
  create(user: NewUser, events: AnyDomainEvent[]): Promise<User>;
  recordLogin(id: string, at: Date): Promise<void>;
  /**
   * Applies a subscription change unless a newer one was applied already (a higher user entitlement
   * version; by timestamp only for unversioned changes while none was versioned). Admins stay admins.
   */
  applySubscription(
    id: string,
    change: { role: Role; subscriptionStatus: SubscriptionStatus; at: Date; version?: number | undefined },
  ): Promise<boolean>;
  setPassword(id: string, passwordHash: string): Promise<void>;
  markEmailVerified(id: string): Promise<User | undefined>;
  updateProfile(
    id: string,
    change: { username?: string; profile: Partial<UserProfile> },
  ): Promise<User | undefined>;
  updateSettings(id: string, settings: Partial<UserSettings>): Promise<User | undefined>;
  /** Erases personal data and frees e-mail/username in the same write that stages user.deleted. */
  softDelete(id: string, at: Date, event: AnyDomainEvent, reason?: string): Promise<boolean>;
}

export interface IssuedAccessToken {
  /** Absent from entries recorded before jti (they held a fingerprint; those tokens are refused now). */
  jti?: string;
  /** The token's exp claim (seconds). */
  exp: number;
}

/** One sign-in: the hash of its current refresh token and of the last tokens it replaced. */
export interface RefreshFamily {
  id: string;
  userId: string;
  currentHash: string;
  previousHashes: string[];
  rememberMe: boolean;
  createdAt: Date;
  rotatedAt: Date;
  /** When the current token stops working: a rotation moves it, never past absoluteExpiresAt. */
  expiresAt: Date;
  /** The sign-in's hard end, fixed when it began (absent on sign-ins from before it existed). */
  absoluteExpiresAt?: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
  /** The access tokens issued by this sign-in, by jti: revoked with it when a refresh token is reused. */
  accessTokens: IssuedAccessToken[];
}

export interface RefreshFamilyRepository {
  create(family: {
    id: string;
    userId: string;
    tokenHash: string;
    rememberMe: boolean;
    now: Date;
    expiresAt: Date;
    absoluteExpiresAt: Date;
    accessToken: IssuedAccessToken;
  }): Promise<void>;
  /** Swaps the current token for a new one if `tokenHash` is current, live and unexpired; else undefined. */
  rotate(
    id: string,
    tokenHash: string,
    next: {
      tokenHash: string;
      now: Date;
      expiresAt: Date;
      absoluteExpiresAt: Date;
      accessToken: IssuedAccessToken;
    },
  ): Promise<RefreshFamily | undefined>;
  findById(id: string): Promise<RefreshFamily | undefined>;
  /** The sign-in that issued the access token with this jti (among the tokens a family keeps). */
  findByAccessToken(jti: string): Promise<RefreshFamily | undefined>;
  /**
   * Revokes the sign-in (kept as it was if already revoked) and returns it as it stands after the
   * write: every access token it issued is there, since a rotation needs it unrevoked.
   */
  revoke(id: string, reason: string, now: Date): Promise<RefreshFamily | undefined>;
  /** Forgets sign-ins that expired before `before` (they can no longer be refreshed or reused). */
  deleteExpired(before: Date): Promise<number>;
  /**
   * Revokes every live sign-in of the user. Returns how many it ended and the access tokens still
   * unexpired at `now` of all the user's revoked sign-ins, read after the write (so a rotation that
   * raced it is included: a rotation after it cannot happen).
   */
  revokeAllOfUser(
    userId: string,
    reason: string,
    now: Date,
  ): Promise<{ ended: number; accessTokens: IssuedAccessToken[] }>;
  /** Forgets every sign-in of a deleted user (their tokens are revoked as a whole). */
  deleteAllOfUser(userId: string): Promise<number>;
}

export type OneTimeTokenKind = 'verify-email' | 'reset-password';

export interface OneTimeTokenRepository {
  create(
    t: { hash: string; kind: OneTimeTokenKind; userId: string; now: Date; expiresAt: Date },
    events?: AnyDomainEvent[],
  ): Promise<void>;
  /** Marks the token used if it is unused and unexpired (exactly once under concurrency). */
  consume(hash: string, kind: OneTimeTokenKind, now: Date): Promise<{ userId: string } | undefined>;
  /** Forgets tokens that expired before `before`, except any whose events still wait for the outbox relay. */
  deleteExpired(before: Date): Promise<number>;
  invalidateAll(userId: string, kind: OneTimeTokenKind, now: Date): Promise<void>;
  /** Forgets every link e-mailed to a deleted user. */
  deleteAllOfUser(userId: string): Promise<number>;
}

export type SocialProvider = 'apple' | 'google';

export interface SocialIdentityRepository {
  findUserId(provider: SocialProvider, subject: string): Promise<string | undefined>;
  /** Links the subject to userId; if another request linked it first, returns that user id instead. */
  link(provider: SocialProvider, subject: string, userId: string, now: Date): Promise<string>;
  saveProviderRefreshToken(provider: SocialProvider, subject: string, token: string): Promise<void>;
  /** The provider refresh tokens kept for a user (to revoke them when the account is deleted). */
  providerRefreshTokensOf(userId: string): Promise<{ provider: SocialProvider; token: string }[]>;
  unlinkAll(userId: string): Promise<void>;
}

/** The answer to a request for one password check. */
export type AttemptReservation =
  /** The check may run: `count` attempts (this one included) since the last success or lock; `lockedUntil` set once this one reached the limit. */
  | { granted: true; count: number; lockedUntil: number | null }
  /** Locked until then (epoch ms): no check runs. */
  | { granted: false; lockedUntil: number };

/** Password-attempt counters per e-mail and login counters per IP and minute. */
export interface LoginAttemptsStore {
  /**
   * Atomically: lifts a lock that has run out, refuses while locked, else counts this attempt BEFORE
   * the password is compared (a failure needs no second write, and a burst can never get more checks
   * than the limit); the attempt that reaches `lockAfter` sets the lock until `now + lockMs`, which a
   * correct password (reset) lifts again.
   */
  reserve(email: string, now: number, lockAfter: number, lockMs: number): Promise<AttemptReservation>;
  /** Forgets the address's attempts and lock (after a correct password or a password reset). */
  reset(email: string): Promise<void>;
  /** Counts one login attempt from `ip` in the window starting at `windowStart` (epoch ms). */
  countIpAttempt(ip: string, windowStart: number, windowMs: number): Promise<number>;
}

/** The answer to a request for one account e-mail to an address. */
export type MailAllowance = { allowed: true } | { allowed: false; retryAfterMs: number };

/** Account e-mails (reset, verification) per address, in a fixed window from the first one. */
export interface AccountMailBudget {
  /** Takes one e-mail from the address's budget (atomic), whether or not the address has an account. */
  take(email: string, now: number, limit: number, windowMs: number): Promise<MailAllowance>;
}

/** What a verified provider token says about the person. Nothing else is trusted. */
export interface VerifiedIdentity {
  provider: SocialProvider;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
}

export interface IdentityProviders {
  /**
   * Throws SOCIAL_LOGIN_ERROR on any failure (signature, iss, aud, exp, nonce, shape). A nonce sent
   * must match the token's; `nonceRequired` refuses a call without one.
   */
  verify(
    provider: SocialProvider,
    token: string,
    options: { nonce?: string; nonceRequired?: boolean },
  ): Promise<VerifiedIdentity>;
}

export interface AppleTokens {
  /** Redeems the app's one-time authorization code; Apple's refresh token is what revocation needs later. */
  exchangeCode(code: string): Promise<{ refreshToken: string | undefined }>;
  /** Revokes the user's Apple grant (required when the account is deleted: App Store guideline 5.1.1(v)). */
  revoke(refreshToken: string): Promise<void>;
}
