export {
  createAccessTokens,
  ACCESS_TOKEN_TTL_SECONDS,
  AccessClaims,
  accessTokenPartiesEnv,
  DEFAULT_ACCESS_TOKEN_AUDIENCE,
  DEFAULT_ACCESS_TOKEN_ISSUER,
  DEV_JWT_SECRET,
} from './access-tokens';
export type { AccessTokens, AccessTokenInput, AccessTokenParties } from './access-tokens';
export {
  createTokenBlacklist,
  BLACKLIST_KEY_PREFIX,
  BLACKLIST_INDEX_KEY,
  BLACKLIST_CHANNEL,
  userRevocation,
} from './token-blacklist';
export { createBlacklistMirror } from './blacklist-mirror';
export { mirroredBlacklist } from './mirrored-blacklist';
export type { BlacklistWarnings } from './mirrored-blacklist';
export { rememberedTokens, rememberedVerifier } from './remembered-tokens';
export type { VerifiedToken } from './remembered-tokens';
export type { BlacklistMirror, BlacklistMirrorOptions } from './blacklist-mirror';
export type { TokenBlacklist } from './token-blacklist';
export { authenticate, bearerToken, currentUser, optionalUser, requireRole } from './authenticate';
export type { AuthenticateOptions } from './authenticate';
export { systemClock } from './clock';
export type { Clock } from './clock';
export {
  ASSERTION_AUDIENCES,
  ASSERTION_HEADER,
  ASSERTION_TTL_SECONDS,
  createAssertionSigner,
  createAssertionVerifier,
  devAssertionKey,
} from './internal-assertion';
export type { AssertionAudience, AssertionSigner, AssertionVerifier } from './internal-assertion';
