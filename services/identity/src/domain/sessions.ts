import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import type { IdentityDeps } from './identity-deps';
import { POLICY } from './policies';
import { randomToken, sha256 } from './secrets';
import type { User } from './user';

export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  refreshExpiresAt: Date;
  /** false: the refresh cookie is a browser-session cookie. */
  persistent: boolean;
}

type SessionDeps = Pick<
  IdentityDeps,
  'accessTokens' | 'families' | 'clock' | 'users' | 'blacklist' | 'config'
>;

const DAY_MS = 24 * 3600_000;
const refreshTtl = (rememberMe: boolean) => (rememberMe ? POLICY.refreshTtlMs : POLICY.sessionRefreshTtlMs);

/** The hard end of a sign-in that began at `start` (IDENTITY_REFRESH_MAX_LIFETIME_DAYS). */
const absoluteEnd = (start: Date, deps: Pick<IdentityDeps, 'config'>) =>
  new Date(start.getTime() + deps.config.IDENTITY_REFRESH_MAX_LIFETIME_DAYS * DAY_MS);

/** A token issued at `now` lives its TTL, but never past the sign-in's hard end. */
const tokenExpiry = (now: Date, rememberMe: boolean, absolute: Date) =>
  new Date(Math.min(now.getTime() + refreshTtl(rememberMe), absolute.getTime()));

function signAccess(user: User, deps: Pick<IdentityDeps, 'accessTokens'>) {
  const signed = deps.accessTokens.sign(
    {
      sub: user.id,
      email: user.email,
      username: user.username,
      role: user.role,
      subscription_status: user.subscriptionStatus,
    },
    POLICY.accessTokenTtlSeconds,
  );
  // recorded with the sign-in, so that a stolen refresh token takes its access tokens down too
  const issued = { jti: signed.claims.jti, exp: signed.claims.exp };
  return { ...signed, issued };
}

type EndDeps = Pick<IdentityDeps, 'families' | 'blacklist' | 'clock'>;

/** Revokes (blacklists by jti, where the gateway checks) the given access tokens that have not expired yet. */
async function revokeIssuedAccess(
  family: { accessTokens?: { jti?: string; exp: number }[] },
  deps: Pick<IdentityDeps, 'blacklist' | 'clock'>,
) {
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  await Promise.all(
    (family.accessTokens ?? [])
      // entries recorded before jti have none: their tokens are refused as invalid anyway
      .filter((t): t is { jti: string; exp: number } => t.jti !== undefined && t.exp > nowSeconds)
      .map((t) => deps.blacklist.revoke(t.jti, t.exp)),
  );
}

/**
 * Ends one sign-in: its refresh family is revoked and every access token it issued that is still
 * alive is blacklisted. Whatever ends a sign-in goes through here or endAllSessions, so no revoked
 * sign-in leaves a working access token behind.
 */
async function endSignIn(familyId: string, reason: string, deps: EndDeps): Promise<void> {
  const family = await deps.families.revoke(familyId, reason, deps.clock.now());
  if (family) await revokeIssuedAccess(family, deps);
}

/**
 * Ends every sign-in of the user (password reset, log out of all devices, account deletion, a new
 * provider linked): refresh families revoked and their live access tokens blacklisted, so a stolen
 * access token dies with them instead of living out its hour. Returns how many sign-ins ended.
 */
export async function endAllSessions(userId: string, reason: string, deps: EndDeps): Promise<number> {
  const { ended, accessTokens } = await deps.families.revokeAllOfUser(userId, reason, deps.clock.now());
  await revokeIssuedAccess({ accessTokens }, deps);
  return ended;
}

/**
 * Refresh tokens are opaque: `<familyId>.<jti>.<256-bit secret>`; only their SHA-256 is stored. The
 * jti makes each token of a family identifiable on its own (the family id is shared by its rotations).
 * `<familyId>.<secret>`, issued before the jti, is still accepted until it rotates or expires.
 */
export function parseRefreshToken(token: string): { familyId: string; jti?: string } | undefined {
  const m = /^([0-9a-f-]{36})\.(?:([0-9a-f-]{36})\.)?([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return undefined;
  return m[2] ? { familyId: m[1]!, jti: m[2] } : { familyId: m[1]! };
}

const newRefreshToken = (familyId: string) => `${familyId}.${randomUUID()}.${randomToken()}`;

/** A new sign-in: an access token and the first refresh token of a new family. */
export async function issueSession(
  user: User,
  options: { rememberMe: boolean },
  deps: SessionDeps,
): Promise<IssuedSession> {
  const now = deps.clock.now();
  const access = signAccess(user, deps);
  const familyId = randomUUID();
  const refreshToken = newRefreshToken(familyId);
  const absoluteExpiresAt = absoluteEnd(now, deps);
  const refreshExpiresAt = tokenExpiry(now, options.rememberMe, absoluteExpiresAt);
  await deps.families.create({
    id: familyId,
    userId: user.id,
    tokenHash: sha256(refreshToken),
    rememberMe: options.rememberMe,
    now,
    expiresAt: refreshExpiresAt,
    absoluteExpiresAt,
    accessToken: access.issued,
  });
  return {
    accessToken: access.token,
    refreshToken,
    expiresIn: access.expiresIn,
    refreshExpiresAt,
    persistent: options.rememberMe,
  };
}

/**
 * Rotates a refresh token: the presented one stops working and a new one is issued, with an access
 * token carrying the user's current role and subscription status. Presenting an already-rotated token
 * means it was copied: the whole family is revoked, so the thief's copy dies too. A rotation never
 * moves the sign-in's hard end (absoluteExpiresAt): after it, the user signs in again.
 */
export async function refreshSession(refreshToken: string, deps: SessionDeps): Promise<IssuedSession> {
  const parsed = parseRefreshToken(refreshToken);
  if (!parsed) throw new AppError('TOKEN_INVALID', 'Refresh token is invalid or malformed');
  const now = deps.clock.now();
  const hash = sha256(refreshToken);
  const existing = await deps.families.findById(parsed.familyId);
  if (!existing) throw new AppError('TOKEN_INVALID', 'Refresh token is invalid or malformed');
  // the user first: the new access token carries their current role and is recorded by the rotation
  const user = await deps.users.findById(existing.userId);
  if (!user) {
    await endSignIn(existing.id, 'user-gone', deps);
    throw new AppError('TOKEN_INVALID', 'Refresh token is invalid or malformed');
  }
  const access = signAccess(user, deps);
  const nextToken = newRefreshToken(parsed.familyId);
  // sign-ins from before the hard end existed get one counted from when they began
  const absoluteExpiresAt = existing.absoluteExpiresAt ?? absoluteEnd(existing.createdAt, deps);
  if (absoluteExpiresAt <= now && existing.currentHash === hash && !existing.revokedAt)
    throw new AppError('TOKEN_EXPIRED', 'Refresh token has expired');
  const expiresAt = tokenExpiry(now, existing.rememberMe, absoluteExpiresAt);
  const rotated = await deps.families.rotate(parsed.familyId, hash, {
    tokenHash: sha256(nextToken),
    now,
    expiresAt,
    absoluteExpiresAt,
    accessToken: access.issued,
  });
  if (!rotated) {
    const family = (await deps.families.findById(parsed.familyId)) ?? existing;
    if (family.previousHashes.includes(hash)) {
      await endSignIn(family.id, 'reuse-detected', deps);
      throw new AppError(
        'TOKEN_BLACKLISTED',
        'Refresh token was already used; all sessions of this sign-in are revoked',
      );
    }
    if (family.revokedAt) throw new AppError('TOKEN_BLACKLISTED', 'Refresh token has been revoked');
    if (family.currentHash === hash) throw new AppError('TOKEN_EXPIRED', 'Refresh token has expired');
    throw new AppError('TOKEN_INVALID', 'Refresh token is invalid or malformed');
  }
  return {
    accessToken: access.token,
    refreshToken: nextToken,
    expiresIn: access.expiresIn,
    refreshExpiresAt: expiresAt,
    persistent: rotated.rememberMe,
  };
}

/** The sign-in (family id) of this refresh token, if the token is one of its own and belongs to `userId`. */
async function signInOf(
  refreshToken: string,
  userId: string | undefined,
  deps: Pick<IdentityDeps, 'families'>,
) {
  const parsed = parseRefreshToken(refreshToken);
  if (!parsed) return undefined;
  const family = await deps.families.findById(parsed.familyId);
  if (!family || (userId !== undefined && family.userId !== userId)) return undefined;
  const hash = sha256(refreshToken);
  if (family.currentHash !== hash && !family.previousHashes.includes(hash)) return undefined;
  return family.id;
}

/** Ends one sign-in (the family of this refresh token), if the token belongs to `userId`. */
export async function revokeRefreshToken(
  refreshToken: string,
  userId: string | undefined,
  deps: EndDeps,
): Promise<boolean> {
  const familyId = await signInOf(refreshToken, userId, deps);
  if (!familyId) return false;
  await endSignIn(familyId, 'logout', deps);
  return true;
}

/**
 * Logs out: the access token is blacklisted and the sign-in that issued it ends (its refresh token
 * too, wherever the app keeps it); then either every sign-in of the user ends (`allDevices`) or also
 * the sign-ins of the refresh tokens given (body, cookie) that belong to the user. Returns how many
 * sign-ins ended.
 */
export async function logOut(
  cmd: {
    userId: string;
    accessToken: { jti: string; exp: number };
    allDevices?: boolean | undefined;
    refreshTokens: (string | undefined)[];
  },
  deps: EndDeps,
): Promise<number> {
  await deps.blacklist.revoke(cmd.accessToken.jti, cmd.accessToken.exp);
  if (cmd.allDevices) return endAllSessions(cmd.userId, 'logout-all', deps);
  const ended = new Set<string>();
  const behind = await deps.families.findByAccessToken(cmd.accessToken.jti);
  if (behind && behind.userId === cmd.userId) ended.add(behind.id);
  for (const token of cmd.refreshTokens) {
    const familyId = token ? await signInOf(token, cmd.userId, deps) : undefined;
    if (familyId) ended.add(familyId);
  }
  for (const familyId of ended) await endSignIn(familyId, 'logout', deps);
  return ended.size;
}
