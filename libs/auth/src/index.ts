export {
  createAccessTokens,
  ACCESS_TOKEN_TTL_SECONDS,
  AccessClaims,
  tokenFingerprint,
} from './access-tokens';
export type { AccessTokens, AccessTokenInput } from './access-tokens';
export { systemClock } from './clock';
export type { Clock } from './clock';
