import { accessPolicyFor } from '../src/domain/access-policy';
import { scopeAllows, trustedApiKey } from '../src/domain/api-keys';

const storedKey = {
  key_id: '6f1c2b1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f',
  client_id: 'partner-cms',
  name: 'Partner CMS',
  scopes: ['flashcards:read'],
  created_at: '2026-11-01T00:00:00.000Z',
  created_by: 'admin',
  expires_at: null,
  revoked_at: null,
};
import { cleanMarkup, jsonDepth, stripMarkup } from '../src/domain/json-input';
import { addressKey, bucketFor } from '../src/domain/rate-plans';
import {
  canAdmitOnCredit,
  canServeLocally,
  grantedPoints,
  type Lease,
  nextLeaseSize,
  shouldTopUp,
  remainingReported,
} from '../src/domain/rate-lease';
import { SUBSCRIBER, USER } from './harness';

describe('access policy (spec Auth columns)', () => {
  it.each([
    ['POST', '/api/v1/auth/register', { auth: 'none', budget: 'signup' }],
    ['POST', '/api/v1/auth/login', { auth: 'none', budget: 'login' }],
    ['POST', '/api/v1/auth/apple', { auth: 'none', budget: 'login' }],
    ['POST', '/api/v1/auth/google', { auth: 'none', budget: 'login' }],
    ['POST', '/api/auth/google', { auth: 'none', budget: 'login' }],
    ['POST', '/api/auth/register', { auth: 'none', budget: 'signup' }],
    ['POST', '/api/auth/forgot-password', { auth: 'none', budget: 'recovery' }],
    ['POST', '/api/auth/reset-password', { auth: 'none', budget: 'recovery' }],
    ['POST', '/api/auth/verify-email', { auth: 'none', budget: 'recovery' }],
    ['POST', '/api/v1/subscriptions/notifications/apple', { auth: 'none', family: 'none', budget: 'store' }],
    ['POST', '/api/v1/subscriptions/notifications/google', { auth: 'none', family: 'none', budget: 'store' }],
    ['POST', '/api/v1/auth/refresh', { auth: 'refresh' }],
    ['POST', '/api/v1/auth/logout', { auth: 'access' }],
    ['POST', '/api/auth/login', { auth: 'none', budget: 'login' }],
    ['POST', '/api/auth/refresh', { auth: 'none' }],
    ['POST', '/api/auth/logout', { auth: 'access' }],
    ['GET', '/api/v1/subscriptions/plans', { auth: 'optional', family: 'shared' }],
    ['POST', '/api/v1/subscriptions/verify-receipt', { auth: 'optional', family: 'shared' }],
    ['GET', '/api/v1/subscriptions/status', { auth: 'optional', family: 'shared' }],
    ['GET', '/api/v1/subscriptions/offers', { auth: 'optional', family: 'shared' }],
    ['POST', '/api/v1/subscriptions/cancel', { auth: 'access', family: 'shared' }],
    ['GET', '/api/v1/subscriptions/check-access/dialogue_training', { auth: 'access' }],
    ['GET', '/api/v1/status', { auth: 'access', family: 'shared' }],
    ['GET', '/api/v1/dialogues/advanced', { auth: 'access', gate: 'subscriber' }],
    ['GET', '/api/v1/admin/users', { auth: 'access', gate: 'admin' }],
    ['GET', '/api/flashcards', { auth: 'optional', family: 'catalogue' }],
    ['POST', '/api/study/record-test', { auth: 'optional', family: 'catalogue' }],
    ['GET', '/api/users/profile', { auth: 'access', family: 'catalogue' }],
    ['GET', '/api/users/avatars/a1b2.png', { auth: 'optional', family: 'catalogue' }],
    ['GET', '/health', { auth: 'none', family: 'none' }],
    ['GET', '/api/health/detailed', { auth: 'none', family: 'none' }],
    ['GET', '/openapi.json', { auth: 'none', family: 'none' }],
  ])('When %s %s is called, Then the policy is %o', (method, path, expected) => {
    expect(accessPolicyFor(method, path)).toMatchObject(expected);
  });
});

describe('client address keys (per-address budgets)', () => {
  it.each([
    ['203.0.113.7', 'ip:203.0.113.7'],
    ['::ffff:203.0.113.7', 'ip:203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', 'ip:2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', 'ip:2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', 'ip:2001:db8:1:3::/64'],
    ['::1', 'ip:::/64'],
  ])('When the client address is %s, Then it is counted as %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });
});

describe('JSON input checks', () => {
  it('When depth is measured, Then objects and arrays count and scalars do not', () => {
    expect(jsonDepth('x', 5)).toBe(0);
    expect(jsonDepth({ a: [1, { b: 2 }] }, 5)).toBe(3);
    expect(jsonDepth(JSON.parse('['.repeat(1000) + ']'.repeat(1000)), 20)).toBe(21);
  });

  it('When markup is cleaned, Then tags, comments and script bodies go and plain comparisons stay', () => {
    expect(stripMarkup('a < b and c > d')).toBe('a < b and c > d');
    expect(stripMarkup('<p onclick="x()">hi</p><!-- c --><style>p{}</style>')).toBe('hi');
    expect(
      cleanMarkup({ word: '<i>run</i>', newPassword: '<x>', confirmPassword: '<y>', idToken: '<z>' }),
    ).toEqual({
      word: 'run',
      newPassword: '<x>',
      confirmPassword: '<y>',
      idToken: '<z>',
    });
  });

  it('When a body has a __proto__ key, Then cleaning keeps it a plain key and never touches prototypes', () => {
    const cleaned = cleanMarkup(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')) as Record<
      string,
      unknown
    >;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((cleaned as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(cleaned)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });
});

describe('rate plans and API key scopes', () => {
  it('When buckets are chosen, Then users count by id, guests by IP, keys by key, premium by role or subscription', () => {
    expect(bucketFor('shared', { kind: 'user', claims: { ...USER, iat: 0, exp: 0 } })).toEqual({
      bucket: 'shared-free',
      key: `user:${USER.sub}`,
    });
    expect(bucketFor('catalogue', { kind: 'user', claims: { ...SUBSCRIBER, iat: 0, exp: 0 } })?.bucket).toBe(
      'catalogue-premium',
    );
    expect(
      bucketFor('shared', { kind: 'user', claims: { ...USER, subscription_status: 'trial', iat: 0, exp: 0 } })
        ?.bucket,
    ).toBe('shared-subscriber');
    expect(bucketFor('catalogue', { kind: 'anonymous', ip: '10.0.0.1' })).toEqual({
      bucket: 'catalogue-free',
      key: 'ip:10.0.0.1',
    });
    expect(bucketFor('shared', { kind: 'apiKey', keyId: 'k', clientId: 'c', scopes: [] })).toEqual({
      bucket: 'api-key',
      key: 'key:k',
    });
    expect(bucketFor('none', { kind: 'anonymous', ip: '10.0.0.1' })).toBeUndefined();
  });

  it('When scopes are checked, Then reads need :read, everything else :write, and * opens all', () => {
    expect(scopeAllows(['flashcards:read'], 'flashcards', 'GET', '/api/flashcards')).toBe(true);
    expect(scopeAllows(['flashcards:read'], 'flashcards', 'DELETE', '/api/flashcards/1')).toBe(false);
    expect(scopeAllows(['flashcards:write'], 'flashcards', 'POST', '/api/flashcards')).toBe(true);
    expect(scopeAllows(['flashcards:write'], 'ai', 'POST', '/api/ai/generate')).toBe(false);
    expect(scopeAllows(['*'], 'identity', 'PUT', '/api/users/profile')).toBe(true);
  });

  it('When a scope is unknown or a path has no service, Then the key opens nothing there', () => {
    expect(scopeAllows('*' as unknown as string[], 'identity', 'GET', '/api/users/profile')).toBe(false);
    expect(scopeAllows(['*'], undefined, 'GET', '/api/v1/unrouted')).toBe(false);
    expect(scopeAllows(['ai:read'], undefined, 'GET', '/api/v1/status')).toBe(true);
    expect(trustedApiKey({ ...storedKey, scopes: ['flashcards:read', 'flashcards:admin'] })).toBeUndefined();
    expect(trustedApiKey({ ...storedKey, scopes: '*' })).toBeUndefined();
    expect(trustedApiKey({ ...storedKey, scopes: [] })).toBeUndefined();
    expect(trustedApiKey(storedKey)).toEqual(storedKey);
  });
});

describe('rate-limit leases (slow start)', () => {
  const policy = { max: 100, lifetimeMs: 1_000, remainingShareDivisor: 16 };
  const lease = (over: Partial<Lease> = {}): Lease => ({
    points: 0,
    size: 8,
    remainingAfter: 10_000,
    limit: 20_000,
    resetAt: 3_600_000,
    expiresAt: 2_000,
    ...over,
  });

  it('When a caller is new or slow, Then one point is taken at a time (exact counting)', () => {
    expect(nextLeaseSize(undefined, 1_000, policy)).toBe(1);
    expect(nextLeaseSize(lease({ size: 1, expiresAt: 500 }), 1_000, policy)).toBe(1);
  });

  it('When a lease is used up within its life, Then the next one doubles, up to the maximum', () => {
    expect(nextLeaseSize(lease({ size: 8 }), 1_000, policy)).toBe(16);
    expect(nextLeaseSize(lease({ size: 64 }), 1_000, policy)).toBe(100);
  });

  it('When a busy lease is down to a quarter within its life, Then it is topped up once, and the top-up doubles', () => {
    expect(shouldTopUp(lease({ size: 8, points: 2 }), 1_000, policy)).toBe(true);
    expect(nextLeaseSize(lease({ size: 8, points: 2 }), 1_000, policy)).toBe(16);
    expect(shouldTopUp(lease({ size: 8, points: 3 }), 1_000, policy)).toBe(false); // more than a quarter left
    expect(shouldTopUp(lease({ size: 2, points: 0 }), 1_000, policy)).toBe(false); // a caller still counted closely
    expect(shouldTopUp(lease({ size: 8, points: 2, expiresAt: 900 }), 1_000, policy)).toBe(false); // expired
    expect(shouldTopUp(lease({ size: 8, points: 2, resetAt: 1_500 }), 1_000, policy)).toBe(false); // window ends first
    expect(shouldTopUp(lease({ size: 8, points: 2, toppingUp: true }), 1_000, policy)).toBe(false); // asked already
  });

  it('When a lease expires with points left, Then the next one halves', () => {
    expect(nextLeaseSize(lease({ size: 8, points: 3, expiresAt: 900 }), 1_000, policy)).toBe(4);
  });

  it('When little of the budget is left, Then leases shrink to a share of it, down to one point', () => {
    expect(nextLeaseSize(lease({ size: 64, remainingAfter: 320 }), 1_000, policy)).toBe(20);
    expect(nextLeaseSize(lease({ size: 64, remainingAfter: 20 }), 1_000, policy)).toBe(1);
  });

  it('When this replica last saw at least 16 points left in the same window, Then a request may be admitted on credit', () => {
    expect(canAdmitOnCredit({ remainingAfter: 16, resetAt: 2_000 }, 1_000, policy)).toBe(true);
    expect(canAdmitOnCredit({ remainingAfter: 15, resetAt: 2_000 }, 1_000, policy)).toBe(false); // near the limit
    expect(canAdmitOnCredit({ remainingAfter: 500, resetAt: 1_000 }, 1_000, policy)).toBe(false); // another window
    expect(canAdmitOnCredit(undefined, 1_000, policy)).toBe(false); // never asked Redis about this caller
    expect(canAdmitOnCredit({ remainingAfter: 500, resetAt: 2_000 }, 1_000, { ...policy, max: 1 })).toBe(
      false,
    );
  });

  it('When the window has ended or leasing is off, Then one point', () => {
    expect(nextLeaseSize(lease({ resetAt: 900 }), 1_000, policy)).toBe(1);
    expect(nextLeaseSize(lease(), 1_000, { ...policy, max: 1 })).toBe(1);
  });

  it('When a lease crosses the limit, Then only the points that fit are granted', () => {
    expect(grantedPoints(10, 50, 100)).toBe(10);
    expect(grantedPoints(10, 104, 100)).toBe(6);
    expect(grantedPoints(10, 130, 100)).toBe(0);
  });

  it('When a request is served from a lease, Then the reported remaining counts the points still held', () => {
    expect(remainingReported(lease({ points: 5, remainingAfter: 40 }))).toBe(45);
    expect(canServeLocally(lease({ points: 5 }), 1_000)).toBe(true);
    expect(canServeLocally(lease({ points: 5 }), 2_000)).toBe(false);
    expect(canServeLocally(lease({ points: 0 }), 1_000)).toBe(false);
  });
});
