import { z } from 'zod';
import { accessTokenPartiesEnv } from '@lingua/auth';
import {
  DEV_JWT_SECRET,
  emailLinkKeyEnv,
  grpcCallersEnv,
  grpcSigningKeyEnv,
  serviceEnv,
} from '@lingua/bootstrap';
import { env, loadConfig, productionGuard } from '@lingua/config';

/** identity: every variable it reads (see README); defaults run locally with no setup. */
export const identityEnv = serviceEnv('identity', { http: 3001, grpc: 15051 });
/** gRPC call identity: identity signs its calls (flashcards' counts) and verifies its callers'. */
export const identityGrpcEnv = grpcSigningKeyEnv('identity');
export const identityGrpcCallersEnv = grpcCallersEnv('identity');

const list = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );

/**
 * The HS256 client-token secret. Only identity (which signs) and the gateway (which verifies at the
 * edge) hold it; every other service learns the caller from the gateway's internal assertion.
 */
export const jwtSecretEnv = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    JWT_SECRET: env.secret().optional(),
  })
  .transform((c, ctx) => {
    if (c.NODE_ENV === 'production' && c.JWT_SECRET === undefined)
      ctx.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'required when NODE_ENV=production' });
    return { jwtSecret: c.JWT_SECRET ?? DEV_JWT_SECRET };
  });

/** Variables of the identity features (accounts, tokens, providers, profiles). */
export const identityFeatureEnv = z.object({
  /** Base of the links in verification and reset e-mails (the app or web front that handles them). */
  IDENTITY_PUBLIC_BASE_URL: env.url('http://127.0.0.1:8080'),
  /**
   * The iOS apps (TEAMID.bundle.id) that open the mailed links: served in
   * /.well-known/apple-app-site-association (404 while empty).
   */
  IDENTITY_APPLE_APP_IDS: list(''),
  /**
   * The Android apps that open the mailed links, as `package=SHA256:FINGERPRINT|…`, comma-separated:
   * served in /.well-known/assetlinks.json (404 while empty).
   */
  IDENTITY_ANDROID_APPS: list('').transform((apps, ctx) =>
    apps.map((app) => {
      const [packageName = '', prints = ''] = app.split('=');
      const fingerprints = prints.split('|').filter(Boolean);
      if (!/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/.test(packageName) || fingerprints.length === 0)
        ctx.addIssue({ code: 'custom', message: `"${app}" is not package=FINGERPRINT|…` });
      return { packageName, fingerprints };
    }),
  ),
  /** bcrypt cost; the spec fixes 12. Lower values exist only to keep tests fast. */
  IDENTITY_BCRYPT_COST: env.int(12, 4, 15),
  IDENTITY_REQUIRE_EMAIL_VERIFICATION: env.bool(false),
  /**
   * Account e-mails (password reset, address verification) one address may be sent per hour, counted
   * per address whether or not it has an account; beyond it the request is 429 RATE001.
   */
  IDENTITY_ACCOUNT_MAILS_PER_HOUR: env.int(5, 1, 1_000),
  /** Secure flag of the refresh and CSRF cookies (false only for plain-HTTP local runs). */
  IDENTITY_COOKIE_SECURE: env.bool(true),
  /**
   * Replaced refresh-token hashes and issued access tokens a sign-in keeps (newest first): reuse of
   * one of these replaced tokens revokes the sign-in and blacklists those access tokens. An older
   * replaced token is refused as invalid. Bounded so a sign-in's document does not grow with use.
   */
  IDENTITY_REFRESH_HISTORY: env.int(20, 1, 1_000),
  /** Hard lifetime of a sign-in from its first token: refreshing never extends it past this. */
  IDENTITY_REFRESH_MAX_LIFETIME_DAYS: env.int(90, 1, 3_650),
  /** How often a deleted account's unfinished clean-up is tried again (the pending-erasures sweep). */
  IDENTITY_ERASURE_RETRY_MS: env.int(60_000, 1_000, 3_600_000),
  /** How often revocations in the database are checked against Redis and lost ones written back. */
  IDENTITY_REVOCATION_RESTORE_MS: env.int(10_000, 200, 600_000),
  APPLE_JWKS_URL: env.url('https://appleid.apple.com/auth/keys'),
  APPLE_ISSUER: env.string('https://appleid.apple.com'),
  /** Bundle id(s) and Services ID(s) the Apple identity token may be issued for. */
  APPLE_AUDIENCES: list('com.lingua.app'),
  /**
   * Sign in with Apple key: with all three set, the app's authorizationCode is redeemed at sign-in
   * and the grant is revoked when the account is deleted; unset, the code is ignored.
   */
  APPLE_TEAM_ID: z.string().min(1).optional(),
  APPLE_KEY_ID: z.string().min(1).optional(),
  APPLE_PRIVATE_KEY_FILE: z.string().min(1).optional(),
  /** The client id the codes are issued to; defaults to the first of APPLE_AUDIENCES. */
  APPLE_CLIENT_ID: z.string().min(1).optional(),
  APPLE_TOKEN_URL: env.url('https://appleid.apple.com/auth/token'),
  APPLE_REVOKE_URL: env.url('https://appleid.apple.com/auth/revoke'),
  APPLE_TOKEN_TIMEOUT_MS: env.int(5_000, 100, 60_000),
  /** Refuse Apple identity tokens sent without the raw nonce (its SHA-256 must be the token's nonce). */
  APPLE_NONCE_REQUIRED: env.bool(false),
  GOOGLE_JWKS_URL: env.url('https://www.googleapis.com/oauth2/v3/certs'),
  GOOGLE_ISSUERS: list('accounts.google.com,https://accounts.google.com'),
  /** OAuth client ids (web/server, iOS, Android) the Google ID token may be issued for. */
  GOOGLE_AUDIENCES: list('lingua-web.apps.googleusercontent.com'),
  /** Refuse Google ID tokens sent without the nonce the app passed to Google (the token's nonce). */
  GOOGLE_NONCE_REQUIRED: env.bool(false),
  /** gRPC address of the flashcards service (profile stats). */
  FLASHCARDS_ADDR: env.addr('127.0.0.1:15052'),
  FLASHCARDS_STATS_DEADLINE_MS: env.int(300, 10, 10_000),
});
export type IdentityFeatureConfig = z.infer<typeof identityFeatureEnv> & { emailLinkKey: Buffer };

/** Development defaults that must be set for production (e-mail links, Google's audiences). */
export const identityProductionGuard = productionGuard({
  IDENTITY_PUBLIC_BASE_URL: { kind: 'url' },
  GOOGLE_AUDIENCES: { kind: 'placeholder', placeholder: 'lingua-web.apps.googleusercontent.com' },
});

export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) => {
  const config = {
    ...loadConfig(identityEnv, source),
    ...loadConfig(jwtSecretEnv, source),
    // iss and aud of the access tokens identity signs (the gateway requires the same)
    ...loadConfig(accessTokenPartiesEnv, source),
    identity: {
      ...loadConfig(identityFeatureEnv, source),
      // seals the address and link of account e-mails on their events (readable by notifications only)
      ...loadConfig(emailLinkKeyEnv, source),
    },
    grpc: { ...loadConfig(identityGrpcEnv, source), ...loadConfig(identityGrpcCallersEnv, source) },
  };
  loadConfig(identityProductionGuard, source); // checks only: exits naming the variable
  return config;
};
export type IdentityConfig = ReturnType<typeof loadServiceConfig>;
