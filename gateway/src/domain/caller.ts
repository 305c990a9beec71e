import type { AccessClaims } from '@lingua/auth';

/** Who is calling, as far as the edge can tell. */
export type Caller =
  | { kind: 'user'; claims: AccessClaims }
  | { kind: 'apiKey'; keyId: string; clientId: string; scopes: string[] }
  | { kind: 'anonymous'; ip: string };

/** Subscriber or admin role, or a running (or trial) subscription in the token. */
export function isPremium(claims: Pick<AccessClaims, 'role' | 'subscription_status'>): boolean {
  return (
    claims.role === 'subscriber' ||
    claims.role === 'admin' ||
    claims.subscription_status === 'active' ||
    claims.subscription_status === 'trial'
  );
}
