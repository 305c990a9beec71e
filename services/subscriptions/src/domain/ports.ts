import type { SandboxPurchasePolicy } from './store-environment';
import type { AnyDomainEvent } from '@lingua/contracts';
import type { Catalogue } from './catalogue';
import type { StorePurchase, Subscription, SubscriptionStatus, Verifier } from './subscription';

export interface OwnerQuery {
  userId?: string | undefined;
  deviceId?: string | undefined;
}

export interface ListFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  status?: SubscriptionStatus | undefined;
}

/** A change decided on the current document: the next document and the events it implies. */
export type Mutation = { next: Subscription; events: AnyDomainEvent[] } | undefined;

export interface SubscriptionStore {
  findById(id: string): Promise<Subscription | undefined>;
  findByStoreKey(storeKey: string): Promise<Subscription | undefined>;
  /**
   * The owner's subscription that decides access at `now`: of those giving access then, the one
   * ending last; when none does, the one ending last (what the owner had).
   */
  latestFor(owner: OwnerQuery, now: Date): Promise<Subscription | undefined>;
  exists(owner: OwnerQuery): Promise<boolean>;
  /** Newest first, at most `cap`. */
  listFor(owner: OwnerQuery, filter: ListFilter, cap: number): Promise<Subscription[]>;
  list(
    owner: OwnerQuery,
    filter: ListFilter,
    skip: number,
    limit: number,
  ): Promise<{ items: Subscription[]; total: number }>;
  /** Ids of subscriptions whose paid period ended before `before` and are not expired yet. */
  dueForExpiry(before: Date, limit: number): Promise<string[]>;
  /** Users whose subscriptions were written since `since` (most recent first, at most `limit`). */
  usersChangedSince(since: Date, limit: number): Promise<string[]>;
  /** Insert with its events in the same write; false when the store key already exists. */
  insert(sub: Subscription, events: AnyDomainEvent[]): Promise<boolean>;
  /**
   * Read, decide, write if the document is still as read (else decide again on the new state): a
   * single document write carries the change and its events (no transactions are used). Returns the
   * document as it now is. `beforeWrite` completes a decision with what it needs to read first
   * (the user's entitlement), on every round.
   */
  mutate(
    id: string,
    decide: (current: Subscription) => Mutation,
    beforeWrite?: (decision: NonNullable<Mutation>) => Promise<NonNullable<Mutation>>,
  ): Promise<Subscription | undefined>;
}

/** The per-user entitlement version: a counter only ever increased, one per user. */
export interface EntitlementVersions {
  /** Increases the user's counter and returns the new value. */
  next(userId: string): Promise<number>;
  /** The user's counter now (0 when never increased). */
  current(userId: string): Promise<number>;
  forget(userId: string): Promise<void>;
}

export interface ReceiptVerifier {
  /** Throws AppError RECEIPT_INVALID / RECEIPT_VERIFICATION_FAILED / PLATFORM_VERIFICATION_ERROR. */
  verify(input: {
    receiptData: string;
    transactionId?: string | undefined;
    productId: string;
  }): Promise<StorePurchase>;
  /** The store's current view of a purchase already recorded, when the store can be asked (else undefined). */
  refresh?(sub: Subscription): Promise<StorePurchase | undefined>;
  /**
   * Tells the store the entitlement was granted (stores that refund unacknowledged purchases).
   * Throws AppError PLATFORM_VERIFICATION_ERROR (or another store error) when the store refuses or fails.
   */
  acknowledge?(purchase: StorePurchase): Promise<void>;
}

export interface UsageCounters {
  /** Counts a dialogue practice unless the daily limit is reached; returns the count and whether it counted. */
  takeDialogue(
    ownerKey: string,
    limit: number | undefined,
    now: Date,
  ): Promise<{ counted: boolean; today: number }>;
  dialoguesToday(ownerKey: string, now: Date): Promise<number>;
  dialoguesThisMonth(ownerKey: string, now: Date): Promise<number>;
  lastActivity(ownerKey: string): Promise<Date | undefined>;
}

export interface Clock {
  now(): Date;
}

/** What the use cases need, built once in start.ts. */
export interface SubscriptionsContext {
  subscriptions: SubscriptionStore;
  catalogue: Catalogue;
  /** The verifier each platform uses (a store's, or the sandbox one when configured). */
  verifiers: Record<'ios' | 'android', { name: Verifier; verifier: ReceiptVerifier }>;
  usage: UsageCounters;
  clock: Clock;
  /** Send staged events now rather than at the relay's next poll. */
  eventsStaged(): void;
  settings: {
    gracePeriodDays: number;
    freeDialoguesPerDay: number;
    /** Who a Sandbox (test) App Store purchase may grant premium to. */
    sandboxPurchases: SandboxPurchasePolicy;
  };
}

/** Verified App Store server notifications (implemented by the Apple verifier in data-access). */
export interface AppleNotifications {
  /** Checks the signature; throws AppError RECEIPT_VERIFICATION_FAILED when it does not hold. */
  decodeNotification(signedPayload: string): Promise<{
    notificationUUID?: string | undefined;
    notificationType?: string | undefined;
    data?: { signedTransactionInfo?: string | undefined; signedRenewalInfo?: string | undefined } | undefined;
  }>;
  /** A signed transaction (and its renewal info) as a store-neutral purchase. */
  purchaseOf(
    signedTransaction: string,
    signedRenewal: string | undefined,
  ): Promise<{ purchase: StorePurchase; revocationDate: number | undefined }>;
}

/** The Play Developer API's current view of a purchase token (the Google verifier in data-access). */
export interface GooglePurchases {
  purchaseFor(purchaseToken: string, productId: string | undefined): Promise<StorePurchase>;
}

/** Authenticates a Pub/Sub push (shared token in the query, or Google's OIDC bearer token). */
export interface PushAuthenticator {
  verify(input: { queryToken?: string | undefined; authorization?: string | undefined }): Promise<void>;
}
