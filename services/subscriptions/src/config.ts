import path from 'node:path';
import { z } from 'zod';
import { grpcCallersEnv, serviceEnv } from '@lingua/bootstrap';
import { env, loadConfig } from '@lingua/config';
import type { SandboxPurchasePolicy } from './domain/store-environment';

/** subscriptions: every variable it reads (see README); defaults run locally with no setup. */
export const subscriptionsEnv = serviceEnv('subscriptions', { http: 3003, grpc: 15053 });
/** gRPC call identity: the public keys of the callers subscriptions verifies. */
export const subscriptionsGrpcCallersEnv = grpcCallersEnv('subscriptions');

const list = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** Store verification, notifications and lifecycle settings of this service. */
const subscriptionsSettings = z
  .object({
    /** Required: the sandbox store verifiers are the development default. */
    NODE_ENV: env.nodeEnv(),
    SUBSCRIPTIONS_CATALOGUE_FILE: env.string(path.join(__dirname, '..', 'config', 'catalogue.json')),
    /** `sandbox` accepts the documented test receipts; it is refused in production. */
    SUBSCRIPTIONS_IOS_VERIFIER: z.enum(['apple', 'sandbox']).optional(),
    SUBSCRIPTIONS_ANDROID_VERIFIER: z.enum(['google', 'sandbox']).optional(),
    STORE_TIMEOUT_MS: env.int(5_000, 100, 60_000),
    APPLE_BUNDLE_ID: env.string('com.lingua.app'),
    /**
     * Numeric app id; required to accept Production transactions (without it only Sandbox ones are),
     * so required with the apple verifier when NODE_ENV=production.
     */
    APPLE_APP_APPLE_ID: z.coerce.number().int().positive().optional(),
    /**
     * With NODE_ENV=production, the user ids (comma-separated) a Sandbox App Store purchase may grant
     * premium to (the team's TestFlight testers); everyone else's Sandbox receipts are refused.
     * Outside production every account may use Sandbox.
     */
    APPLE_SANDBOX_ALLOWED_USER_IDS: list,
    /** Comma-separated files (DER or PEM) of the trusted Apple root certificates. */
    APPLE_ROOT_CERTS: list,
    /**
     * App Store Server API (status?check_renewal=true asks Apple): the in-app purchase key from App
     * Store Connect (issuer id, key id, .p8 file). All three or none; none = Apple is not asked.
     */
    APPLE_IAP_ISSUER_ID: z.string().min(1).optional(),
    APPLE_IAP_KEY_ID: z.string().min(1).optional(),
    APPLE_IAP_PRIVATE_KEY_FILE: z.string().min(1).optional(),
    /** Which App Store Server API to ask; default Production when APPLE_APP_APPLE_ID is set, else Sandbox. */
    APPLE_IAP_ENVIRONMENT: z.enum(['Production', 'Sandbox']).optional(),
    /** Base URL override (a loopback stand-in in tests); default Apple's URL for the environment. */
    APPLE_IAP_API_URL: z.url().optional(),
    GOOGLE_PLAY_PACKAGE_NAME: env.string('com.lingua.app'),
    GOOGLE_PLAY_API_URL: env.url('https://androidpublisher.googleapis.com/'),
    /** Service-account key file (JSON with client_email and private_key). */
    GOOGLE_SERVICE_ACCOUNT_KEY_FILE: z.string().optional(),
    /** RTDN push authentication: a shared secret in the push URL's `token` query parameter … */
    GOOGLE_RTDN_SHARED_SECRET: z.string().min(16).optional(),
    /** … or the Pub/Sub OIDC token: its audience, signer e-mail and the certificates URL. */
    GOOGLE_RTDN_AUDIENCE: z.string().optional(),
    GOOGLE_RTDN_SERVICE_ACCOUNT_EMAIL: z.string().optional(),
    GOOGLE_RTDN_CERTS_URL: env.url('https://www.googleapis.com/oauth2/v1/certs'),
    /**
     * How long a store notification's claim is held by the attempt applying it: a retry in that time
     * is answered 409, one after it takes the claim over (the attempt died). Longer than an apply
     * (two store calls of STORE_TIMEOUT_MS and a few writes).
     */
    STORE_NOTIFICATION_LEASE_MS: env.int(30_000, 1_000, 600_000),
    SUBSCRIPTIONS_SWEEP_INTERVAL_MS: env.int(60_000, 50, 3_600_000),
    SUBSCRIPTIONS_GRACE_PERIOD_DAYS: env.int(3, 0, 60),
    FREE_DIALOGUES_PER_DAY: env.int(3, 0, 1000),
  })
  .transform((c, ctx) => {
    const prod = c.NODE_ENV === 'production';
    const iosVerifier = c.SUBSCRIPTIONS_IOS_VERIFIER ?? (prod ? 'apple' : 'sandbox');
    const androidVerifier = c.SUBSCRIPTIONS_ANDROID_VERIFIER ?? (prod ? 'google' : 'sandbox');
    if (prod && iosVerifier === 'sandbox')
      ctx.addIssue({
        code: 'custom',
        path: ['SUBSCRIPTIONS_IOS_VERIFIER'],
        message: 'sandbox is refused in production',
      });
    if (prod && androidVerifier === 'sandbox')
      ctx.addIssue({
        code: 'custom',
        path: ['SUBSCRIPTIONS_ANDROID_VERIFIER'],
        message: 'sandbox is refused in production',
      });
    if (iosVerifier === 'apple' && c.APPLE_ROOT_CERTS.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['APPLE_ROOT_CERTS'],
        message: 'required with the apple verifier',
      });
    if (prod && iosVerifier === 'apple' && c.APPLE_APP_APPLE_ID === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['APPLE_APP_APPLE_ID'],
        message:
          'required with the apple verifier when NODE_ENV=production (without it only Sandbox transactions are accepted)',
      });
    const iapKey = [c.APPLE_IAP_ISSUER_ID, c.APPLE_IAP_KEY_ID, c.APPLE_IAP_PRIVATE_KEY_FILE];
    if (iapKey.some(Boolean) && !iapKey.every(Boolean))
      ctx.addIssue({
        code: 'custom',
        path: ['APPLE_IAP_PRIVATE_KEY_FILE'],
        message: 'APPLE_IAP_ISSUER_ID, APPLE_IAP_KEY_ID and APPLE_IAP_PRIVATE_KEY_FILE go together',
      });
    if (androidVerifier === 'google' && !c.GOOGLE_SERVICE_ACCOUNT_KEY_FILE)
      ctx.addIssue({
        code: 'custom',
        path: ['GOOGLE_SERVICE_ACCOUNT_KEY_FILE'],
        message: 'required with the google verifier',
      });
    const appleApiEnvironment =
      c.APPLE_IAP_ENVIRONMENT ?? (c.APPLE_APP_APPLE_ID === undefined ? 'Sandbox' : 'Production');
    const sandboxPurchases: SandboxPurchasePolicy = prod
      ? { allowedUserIds: new Set(c.APPLE_SANDBOX_ALLOWED_USER_IDS) }
      : 'any';
    return { ...c, iosVerifier, androidVerifier, appleApiEnvironment, sandboxPurchases };
  });

export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) => ({
  ...loadConfig(subscriptionsEnv, source),
  subscriptions: loadConfig(subscriptionsSettings, source),
  grpc: loadConfig(subscriptionsGrpcCallersEnv, source),
});
export type SubscriptionsConfig = ReturnType<typeof loadServiceConfig>;
export type SubscriptionsSettings = SubscriptionsConfig['subscriptions'];
