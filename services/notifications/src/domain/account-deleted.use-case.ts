import type { Clock } from '@lingua/auth';
import type { DomainEvent } from '@lingua/contracts';
import type { EndpointStore } from './webhook';

export const ACCOUNT_DELETED_REASON = 'account_deleted';

/**
 * A deleted account's own endpoints are disabled before the event fans out: nobody is left to manage
 * them, so they receive nothing more, not even this user.deleted (scope-all endpoints still do);
 * their pending retries are dead-lettered by the worker. Disabled rather than deleted, so an admin
 * can still see where the account's events went. Idempotent: a redelivery finds nothing enabled.
 */
export async function disableEndpointsOfDeletedAccount(
  event: DomainEvent<'user.deleted'>,
  deps: { endpoints: EndpointStore; clock: Clock },
): Promise<number> {
  return deps.endpoints.disableAllOwnedBy(event.data.userId, ACCOUNT_DELETED_REASON, deps.clock.now());
}
