import { readFileSync } from 'node:fs';
import {
  Environment,
  type JWSRenewalInfoDecodedPayload,
  type JWSTransactionDecodedPayload,
  type ResponseBodyV2DecodedPayload,
  SignedDataVerifier,
  Status,
  VerificationException,
  VerificationStatus,
} from '@apple/app-store-server-library';
import { AppError } from '@lingua/errors';
import type { ReceiptVerifier } from '../../domain/ports';
import type { StorePurchase, Subscription } from '../../domain/subscription';
import type { AppStoreServerApi } from './app-store-server-api';

export interface AppleSettings {
  /** DER or PEM contents of the trusted roots (Apple Root CA - G3 in production). */
  rootCertificates: Buffer[];
  bundleId: string;
  /** Needed to accept Production-signed data; without it only Sandbox data is accepted. */
  appAppleId?: number | undefined;
  /** The App Store Server API, when its key is configured: `refresh` asks Apple (else it cannot). */
  api?: AppStoreServerApi | undefined;
}

/** Reads root certificate files (DER, or PEM converted to DER). */
export function readRootCertificates(files: string[]): Buffer[] {
  return files.map((file) => {
    const raw = readFileSync(file);
    const text = raw.toString('latin1');
    if (!text.includes('-----BEGIN CERTIFICATE-----')) return raw;
    const b64 = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    return Buffer.from(b64, 'base64');
  });
}

/** The environment a JWS claims, read before verification only to pick the verifier that checks it. */
function claimedEnvironment(
  jws: string,
  pick: (payload: Record<string, unknown>) => unknown,
): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const env = pick(payload);
    return typeof env === 'string' ? env : undefined;
  } catch {
    return undefined;
  }
}

function mapVerificationError(err: unknown): never {
  if (err instanceof AppError) throw err;
  if (err instanceof VerificationException) {
    switch (err.status) {
      case VerificationStatus.RETRYABLE_VERIFICATION_FAILURE:
        throw new AppError('PLATFORM_VERIFICATION_ERROR', 'Apple verification is temporarily unavailable', {
          cause: err,
        });
      case VerificationStatus.INVALID_APP_IDENTIFIER:
      case VerificationStatus.INVALID_ENVIRONMENT:
        throw new AppError('RECEIPT_INVALID', 'Transaction is not for this app or environment', {
          cause: err,
        });
      case VerificationStatus.FAILURE:
        throw new AppError('RECEIPT_INVALID', 'Transaction data is malformed', { cause: err });
      default:
        throw new AppError('RECEIPT_VERIFICATION_FAILED', 'Transaction signature could not be verified', {
          cause: err,
        });
    }
  }
  throw new AppError('RECEIPT_INVALID', 'Transaction data is malformed', { cause: err as Error });
}

/**
 * StoreKit 2 signed transactions and App Store Server Notifications V2, verified with Apple's own
 * library: x5c chain to the configured roots, Apple's certificate OIDs, ES256 signature, bundle id,
 * environment. Online (OCSP) checks are off: no network here; the chain is checked at the signed date.
 * Only Production and Sandbox are accepted: Xcode/LocalTesting data skips signature checks.
 */
export function appleVerifier(settings: AppleSettings) {
  const sandbox = new SignedDataVerifier(
    settings.rootCertificates,
    false,
    Environment.SANDBOX,
    settings.bundleId,
  );
  const production =
    settings.appAppleId === undefined
      ? undefined
      : new SignedDataVerifier(
          settings.rootCertificates,
          false,
          Environment.PRODUCTION,
          settings.bundleId,
          settings.appAppleId,
        );
  const verifierFor = (env: string | undefined) => {
    if (env === Environment.SANDBOX) return sandbox;
    if (env === Environment.PRODUCTION && production) return production;
    throw new AppError('RECEIPT_INVALID', 'Transaction environment is not accepted');
  };

  async function decodeTransaction(jws: string): Promise<JWSTransactionDecodedPayload> {
    try {
      return await verifierFor(claimedEnvironment(jws, (p) => p.environment)).verifyAndDecodeTransaction(jws);
    } catch (err) {
      return mapVerificationError(err);
    }
  }

  async function decodeRenewal(jws: string): Promise<JWSRenewalInfoDecodedPayload> {
    try {
      return await verifierFor(claimedEnvironment(jws, (p) => p.environment)).verifyAndDecodeRenewalInfo(jws);
    } catch (err) {
      return mapVerificationError(err);
    }
  }

  async function decodeNotification(signedPayload: string): Promise<ResponseBodyV2DecodedPayload> {
    try {
      const env = claimedEnvironment(
        signedPayload,
        (p) => (p.data as Record<string, unknown> | undefined)?.environment,
      );
      return await verifierFor(env).verifyAndDecodeNotification(signedPayload);
    } catch (err) {
      return mapVerificationError(err);
    }
  }

  const verifier: ReceiptVerifier = {
    async verify({ receiptData, transactionId }) {
      const tx = await decodeTransaction(receiptData);
      if (transactionId && tx.transactionId !== transactionId && tx.originalTransactionId !== transactionId)
        throw new AppError('RECEIPT_INVALID', 'transaction_id does not match the signed transaction');
      return toPurchase(tx, undefined);
    },
    ...(settings.api && { refresh: (sub: Subscription) => currentState(settings.api!, sub) }),
  };

  /**
   * The subscription's state at Apple now (Get All Subscription Statuses): its latest transaction and
   * renewal info, verified like any signed data (chain, bundle id, environment) before use.
   */
  async function currentState(api: AppStoreServerApi, sub: Subscription): Promise<StorePurchase | undefined> {
    const item = await api.latestOf(sub.originalTransactionId);
    if (!item?.signedTransactionInfo) return undefined;
    const tx = await decodeTransaction(item.signedTransactionInfo);
    if (tx.originalTransactionId !== sub.originalTransactionId)
      throw new AppError('RECEIPT_INVALID', 'Apple answered for another subscription');
    const renewal = item.signedRenewalInfo ? await decodeRenewal(item.signedRenewalInfo) : undefined;
    const purchase = toPurchase(tx, renewal);
    if (item.status === Status.EXPIRED || item.status === Status.BILLING_RETRY) purchase.state = 'expired';
    // billing grace period: Apple keeps the service on while it retries the payment
    if (item.status === Status.BILLING_GRACE_PERIOD && renewal?.gracePeriodExpiresDate)
      purchase.expiresDate = new Date(
        Math.max(purchase.expiresDate.getTime(), renewal.gracePeriodExpiresDate),
      );
    return purchase;
  }
  async function purchaseOf(signedTransaction: string, signedRenewal: string | undefined) {
    const tx = await decodeTransaction(signedTransaction);
    const renewal = signedRenewal ? await decodeRenewal(signedRenewal) : undefined;
    return { purchase: toPurchase(tx, renewal), revocationDate: tx.revocationDate };
  }
  return { ...verifier, decodeTransaction, decodeRenewal, decodeNotification, purchaseOf };
}
export type AppleVerifier = ReturnType<typeof appleVerifier>;

/** A verified transaction (and renewal info when known) in our store-neutral shape. */
export function toPurchase(
  tx: JWSTransactionDecodedPayload,
  renewal: JWSRenewalInfoDecodedPayload | undefined,
): StorePurchase {
  if (!tx.originalTransactionId || !tx.transactionId || !tx.productId || !tx.purchaseDate || !tx.expiresDate)
    throw new AppError('RECEIPT_INVALID', 'Not an auto-renewable subscription transaction');
  const revoked = tx.revocationDate !== undefined;
  return {
    originalTransactionId: tx.originalTransactionId,
    transactionId: tx.transactionId,
    productId: tx.productId,
    purchaseDate: new Date(tx.purchaseDate),
    expiresDate: new Date(tx.expiresDate),
    autoRenew: renewal ? renewal.autoRenewStatus === 1 : true,
    isTrial: tx.offerDiscountType === 'FREE_TRIAL',
    // Apple prices are in milliunits of the currency; ours are minor units (cents)
    price:
      tx.price !== undefined && tx.currency
        ? { amount: Math.round(tx.price / 10), currency: tx.currency }
        : undefined,
    state: revoked ? 'refunded' : 'active',
    ...(revoked && { revokedAt: new Date(tx.revocationDate!) }),
    environment: String(tx.environment ?? ''),
  };
}
