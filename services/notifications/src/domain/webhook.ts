import type { EventName } from '@lingua/contracts';

/** Synthetic event sent by "send a test event"; never published on the bus. */
export const TEST_EVENT_NAME = 'webhook.test';

/** Who receives what: an account's endpoint gets events about that account; an admin's may get everyone's. */
export type EndpointScope = 'own' | 'all';

export interface EndpointSecret {
  /** `whsec_` + base64 of 24 random bytes (Standard Webhooks). */
  secret: string;
  createdAt: Date;
  /** After a rotation the previous secret still signs until then, so receivers can switch over. */
  expiresAt: Date | null;
}

export interface WebhookEndpoint {
  id: string;
  ownerId: string;
  url: string;
  description: string;
  events: EventName[];
  scope: EndpointScope;
  secrets: EndpointSecret[];
  enabled: boolean;
  disabledReason: string | null;
  /** Circuit breaker: failures in a row across this endpoint's deliveries. */
  consecutiveFailures: number;
  circuitOpenUntil: Date | null;
  /** First failure since the last success; persistent failure from then on disables the endpoint. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface AttemptOutcome {
  at: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookDelivery {
  /** `<endpointId>:<eventId>`: one delivery per (event, endpoint), whatever the number of redeliveries. */
  id: string;
  endpointId: string;
  ownerId: string;
  /** The `webhook-id` header: the event id, the same on every attempt and replay. */
  eventId: string;
  eventName: string;
  /** The exact bytes sent (serialised once, when the delivery was created). */
  body: string;
  status: DeliveryStatus;
  /** Attempts made since the delivery was created or last replayed. */
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttempt: AttemptOutcome | null;
  replays: number;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  /** Bumped by every state change (a claim too): fences concurrent writers. */
  version: number;
}

/** Who may receive an event: an enabled endpoint subscribed to it, with scope all or owned by the event's user. */
export function isSubscriber(endpoint: WebhookEndpoint, eventName: string, subjectUserId: string | null) {
  return (
    endpoint.enabled &&
    (endpoint.events as string[]).includes(eventName) &&
    (endpoint.scope === 'all' || (subjectUserId !== null && endpoint.ownerId === subjectUserId))
  );
}

/**
 * The owner's role as identity holds it now, not as their token said when the endpoint was made.
 * Throws when identity cannot be asked: the caller retries rather than guesses.
 */
export interface OwnerRoles {
  isAdmin(userId: string): Promise<boolean>;
}

export const OWNER_NOT_ADMIN = 'owner_not_admin';

/**
 * A scope-all endpoint receives every account's events only while its owner is an admin: once the
 * owner is not, it is disabled (the owner sees why) and receives nothing more. Other endpoints pass.
 */
export async function mayReceive(
  endpoint: WebhookEndpoint,
  deps: { owners: OwnerRoles; endpoints: Pick<EndpointStore, 'update'>; now: Date },
): Promise<boolean> {
  if (endpoint.scope !== 'all' || (await deps.owners.isAdmin(endpoint.ownerId))) return true;
  await deps.endpoints.update(endpoint.id, {
    enabled: false,
    disabledReason: OWNER_NOT_ADMIN,
    updatedAt: deps.now,
  });
  return false;
}

/** No failure since its last success: its first attempt may be sent straight from the event consumer. */
export function isHealthy(endpoint: WebhookEndpoint) {
  return endpoint.enabled && endpoint.consecutiveFailures === 0 && !endpoint.circuitOpenUntil;
}

/** A delivery whose current attempt this worker claimed (its version is the claim's). */
export type ClaimedDelivery = WebhookDelivery;

export interface AttemptRecord extends AttemptOutcome {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  responseBody: string | null;
}

export interface EndpointStore {
  insert(e: WebhookEndpoint): Promise<void>;
  get(id: string): Promise<WebhookEndpoint | null>;
  countByOwner(ownerId: string): Promise<number>;
  list(
    filter: { ownerId?: string },
    page: number,
    limit: number,
  ): Promise<{ items: WebhookEndpoint[]; total: number }>;
  update(id: string, set: Partial<WebhookEndpoint>): Promise<WebhookEndpoint | null>;
  remove(id: string): Promise<boolean>;
  /** Enabled endpoints that subscribed to the event and may see it (scope all, or owned by the subject). */
  subscribers(eventName: string, subjectUserId: string | null): Promise<WebhookEndpoint[]>;
  recordSuccess(id: string): Promise<void>;
  /** Counts a failure; returns the endpoint as it now is. */
  recordFailure(id: string, at: Date): Promise<WebhookEndpoint | null>;
  /** Half-open probe: true for the one caller that re-arms an expired circuit. */
  claimProbe(id: string, now: Date, reopenUntil: Date): Promise<boolean>;
  /** Disables every enabled endpoint of an account; returns how many. */
  disableAllOwnedBy(ownerId: string, reason: string, at: Date): Promise<number>;
  /** Deletes every endpoint of the owner (a deleted account); returns their ids. */
  removeAllOwnedBy(ownerId: string): Promise<string[]>;
}

export interface DeliveryStore {
  /** Inserts unless a delivery with this id exists (in whatever state); true when inserted. */
  createIfAbsent(d: WebhookDelivery): Promise<boolean>;
  get(id: string): Promise<WebhookDelivery | null>;
  list(
    filter: { endpointId: string; status?: DeliveryStatus | undefined },
    page: number,
    limit: number,
  ): Promise<{ items: WebhookDelivery[]; total: number }>;
  /** Pending deliveries due at `now`, oldest due first (candidates: a claim decides who sends). */
  due(now: Date, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Takes the current attempt of a pending delivery: one update conditional on the version read,
   * which bumps it and moves `nextAttemptAt` `leaseMs` ahead (if the worker dies, the attempt is due
   * again then). Of concurrent claims exactly one wins; null for the others, or when it changed.
   */
  claim(d: WebhookDelivery, now: Date, leaseMs: number): Promise<ClaimedDelivery | null>;
  /**
   * Stores a delivery that was never stored, already claimed (the hot path's first attempt): false
   * when this (endpoint, event) delivery exists, whoever stored it, so a duplicate of the event
   * cannot send it again. Written at once, not grouped: the request waits for it.
   */
  insertClaimed(d: ClaimedDelivery): Promise<boolean>;
  /** Fenced by the version: false when the delivery changed meanwhile (nothing is written then). */
  settle(
    d: ClaimedDelivery,
    set: Pick<WebhookDelivery, 'status' | 'attempts' | 'nextAttemptAt' | 'lastAttempt' | 'completedAt'>,
    now: Date,
  ): Promise<boolean>;
  /** Pushes the attempt back without counting it (open circuit). */
  postpone(d: ClaimedDelivery, until: Date, now: Date): Promise<boolean>;
  replay(id: string, now: Date): Promise<WebhookDelivery | null>;
  replayFailed(endpointId: string, now: Date): Promise<number>;
  recordAttempt(a: AttemptRecord): Promise<void>;
  /** Deletes the deliveries and attempts of these endpoints (a deleted account's). */
  removeAllOfEndpoints(endpointIds: string[]): Promise<number>;
  attemptsOf(deliveryId: string, limit: number): Promise<AttemptRecord[]>;
}
