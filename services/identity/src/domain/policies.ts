/** The spec's numbers, in one place. */
export const POLICY = {
  accessTokenTtlSeconds: 3600,
  /** Refresh token lifetime of the spec (rememberMe true or absent). */
  refreshTtlMs: 30 * 24 * 3600_000,
  /** rememberMe false: a browser-session sign-in that ends after a day. */
  sessionRefreshTtlMs: 24 * 3600_000,
  lockAfterFailures: 5,
  lockDurationMs: 15 * 60_000,
  loginAttemptsPerIpPerWindow: 5,
  loginIpWindowMs: 60_000,
  resetTokenTtlMs: 15 * 60_000,
  verifyTokenTtlMs: 24 * 3600_000,
  /** The window of the account e-mails per address (IDENTITY_ACCOUNT_MAILS_PER_HOUR in it). */
  accountMailWindowMs: 3600_000,
  avatarMaxBytes: { free: 10 * 1024 * 1024, premium: 50 * 1024 * 1024 },
} as const;
