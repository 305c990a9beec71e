import { readFileSync } from 'node:fs';
import {
  APIException,
  AppStoreServerAPIClient,
  Environment,
  type LastTransactionsItem,
} from '@apple/app-store-server-library';
import { AppError } from '@lingua/errors';
import type { Logger } from '@lingua/logger';

export interface AppStoreServerApiSettings {
  /** The in-app purchase key from App Store Connect (Users and Access → Integrations). */
  issuerId: string;
  keyId: string;
  /** PEM (PKCS#8) contents of the key's .p8 file. */
  privateKey: string;
  bundleId: string;
  environment: 'Production' | 'Sandbox';
  /** Apple's URL for the environment when unset; a loopback stand-in in tests. */
  baseUrl?: string | undefined;
  timeoutMs: number;
  logger?: Logger | undefined;
}

export const readPrivateKey = (file: string) => readFileSync(file, 'utf8');

const APPLE_URLS = {
  Production: 'https://api.storekit.apple.com',
  Sandbox: 'https://api.storekit-sandbox.apple.com',
} as const;

/**
 * Apple's own client (it signs the ES256 bearer: iss, aud appstoreconnect-v1, bid, kid, 5-minute expiry),
 * through its extension point `makeFetchRequest` (protected, the one Apple's own tests override):
 * the library fixes the base URL per environment and sets no timeout, so this sends the same
 * request to the configured base URL with the platform fetch, bounded by the store timeout.
 */
class BoundedAppStoreClient extends AppStoreServerAPIClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(s: AppStoreServerApiSettings) {
    const environment = s.environment === 'Production' ? Environment.PRODUCTION : Environment.SANDBOX;
    super(s.privateKey, s.keyId, s.issuerId, s.bundleId, environment);
    this.baseUrl = (s.baseUrl ?? APPLE_URLS[s.environment]).replace(/\/+$/, '');
    this.timeoutMs = s.timeoutMs;
  }

  protected override async makeFetchRequest(
    path: string,
    query: URLSearchParams,
    method: string,
    body: string | Buffer | undefined,
    headers: Record<string, string>,
  ) {
    const response = await fetch(`${this.baseUrl}${path}?${query}`, {
      method,
      ...(body !== undefined && { body: typeof body === 'string' ? body : new Uint8Array(body) }),
      headers,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    // the library reads ok, status and json() only, which the platform Response has as node-fetch's does
    return response as never;
  }
}

/** The App Store Server API calls this service makes. */
export function appStoreServerApi(settings: AppStoreServerApiSettings) {
  const client = new BoundedAppStoreClient(settings);

  /**
   * Get All Subscription Statuses (GET /inApps/v1/subscriptions/{transactionId}): the latest signed
   * transaction and renewal info of the subscription this original transaction belongs to, or
   * undefined when Apple lists none for it. Throws PLATFORM_VERIFICATION_ERROR when Apple cannot answer.
   */
  async function latestOf(originalTransactionId: string): Promise<LastTransactionsItem | undefined> {
    try {
      const res = await client.getAllSubscriptionStatuses(originalTransactionId);
      return (res.data ?? [])
        .flatMap((group) => group.lastTransactions ?? [])
        .find((item) => item.originalTransactionId === originalTransactionId);
    } catch (err) {
      const api = err instanceof APIException ? err : undefined;
      // the status and Apple's error code only: never the bearer or the transaction id
      settings.logger?.warn(
        { status: api?.httpStatusCode, appleErrorCode: api?.apiError, error: api ? undefined : String(err) },
        'app store server api: subscription status unavailable',
      );
      if (api?.httpStatusCode === 401)
        settings.logger?.error(
          'app store server api: the in-app purchase key was refused (issuer, key id, bundle id)',
        );
      throw new AppError('PLATFORM_VERIFICATION_ERROR', 'App Store Server API unavailable', {
        cause: err as Error,
      });
    }
  }

  return { latestOf };
}
export type AppStoreServerApi = ReturnType<typeof appStoreServerApi>;
