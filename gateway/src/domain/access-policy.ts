/**
 * Who may call a path, read from the spec's Auth columns. Pure: the edge middleware applies it.
 * - `none`: no token looked at (sign-up, sign-in, health, docs)
 * - `refresh`: the refresh token travels in the bearer header; identity alone understands it, so
 *   the gateway lets it through untouched
 * - `optional`: guests allowed; a token, when sent, must be valid
 * - `access`: a valid, unrevoked access token (or an API key) is required
 */
export type AuthMode = 'none' | 'refresh' | 'optional' | 'access';

/** A role gate on top of authentication. */
export type Gate = 'subscriber' | 'admin';

/** Which hourly budget a request draws from (spec: Limits). */
export type RateFamily = 'shared' | 'catalogue' | 'none';

/**
 * Budgets per client address on the operations anyone can call without a token, on top of the
 * family's: sign-in (password or social, 5 a minute), account creation (100 an hour), the
 * e-mailed-token operations (20 an hour), the stores' server notifications (their own budget).
 */
export type AddressBudget = 'login' | 'signup' | 'recovery' | 'store';

export interface AccessPolicy {
  auth: AuthMode;
  gate?: Gate;
  family: RateFamily;
  budget?: AddressBudget;
}

/** POST paths with an address budget; everything else on these prefixes has none. */
const ADDRESS_BUDGETS: Record<string, AddressBudget> = {
  '/api/v1/auth/login': 'login',
  '/api/v1/auth/apple': 'login',
  '/api/v1/auth/google': 'login',
  '/api/auth/login': 'login',
  '/api/auth/google': 'login',
  '/api/v1/auth/register': 'signup',
  '/api/auth/register': 'signup',
  '/api/auth/forgot-password': 'recovery',
  '/api/auth/reset-password': 'recovery',
  '/api/auth/verify-email': 'recovery',
  // the mailed links' web pages submit the same tokens
  '/verify-email': 'recovery',
  '/reset-password': 'recovery',
};

/**
 * The App Store's and Google Play's server-to-server notifications: no user token (Apple signs the
 * payload, Google's push carries its own OIDC token), so the edge lets them through to the
 * subscriptions service, which verifies them, on a budget of their own.
 */
const STORE_NOTIFICATIONS = '/api/v1/subscriptions/notifications';

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

const GUEST_SUBSCRIPTION_PATHS = ['plans', 'verify-receipt', 'status', 'offers'].map(
  (p) => `/api/v1/subscriptions/${p}`,
);
/**
 * Group B is open: anonymous callers pass (a token, when sent, must be valid) and the flashcards service
 * decides about them: the dev user in the development setting (FLASHCARDS_DEV_ANONYMOUS_USER), 401
 * otherwise (spec: Authentication 13).
 */
const GROUP_B = ['/api/flashcards', '/api/study'];
const AVATARS = '/api/users/avatars';

export function accessPolicyFor(method: string, path: string): AccessPolicy {
  const isPost = method === 'POST';
  if (
    under(path, '/health') ||
    under(path, '/api/health') ||
    under(path, '/docs') ||
    path === '/openapi.json'
  )
    return { auth: 'none', family: 'none' };

  // Group A authentication: public except refresh (refresh token) and logout (access token).
  if (under(path, '/api/v1/auth')) {
    if (path === '/api/v1/auth/refresh') return { auth: 'refresh', family: 'none' };
    if (path === '/api/v1/auth/logout') return { auth: 'access', family: 'none' };
    return publicAuth(isPost, path);
  }
  // Group C authentication: public except logout (its refresh token travels in the body).
  if (under(path, '/api/auth')) {
    if (path === '/api/auth/logout') return { auth: 'access', family: 'none' };
    return publicAuth(isPost, path);
  }
  if (under(path, STORE_NOTIFICATIONS)) return { auth: 'none', family: 'none', budget: 'store' };

  if (/^\/api\/v\d+(\/|$)/.test(path)) {
    if (GUEST_SUBSCRIPTION_PATHS.some((p) => under(path, p))) return { auth: 'optional', family: 'shared' };
    if (under(path, '/api/v1/admin')) return { auth: 'access', gate: 'admin', family: 'shared' };
    if (under(path, '/api/v1/dialogues/advanced'))
      return { auth: 'access', gate: 'subscriber', family: 'shared' };
    return { auth: 'access', family: 'shared' };
  }
  if (GROUP_B.some((p) => under(path, p))) return { auth: 'optional', family: 'catalogue' };
  // avatar images are linked from profiles and loaded as images (no Authorization header)
  if (under(path, AVATARS)) return { auth: 'optional', family: 'catalogue' };
  if (under(path, '/api')) return { auth: 'access', family: 'catalogue' };
  return publicAuth(isPost, path);
}

function publicAuth(isPost: boolean, path: string): AccessPolicy {
  const budget = isPost ? ADDRESS_BUDGETS[path] : undefined;
  return budget ? { auth: 'none', family: 'none', budget } : { auth: 'none', family: 'none' };
}
