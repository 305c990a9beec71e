import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';
import { parseInput } from '@lingua/errors';
import { EraseUserDataInput, eraseUserData } from '../../domain/erase-user-data.use-case';

/** Durable consumer: a deleted account's images, descriptions and quotas are erased. */
export const userDeletedSubscriber = (deps: Parameters<typeof eraseUserData>[1]): ConsumerDefinition => ({
  durable: 'ai-user-deleted',
  events: ['user.deleted'],
  handler: (event) => {
    const e = event as DomainEvent<'user.deleted'>;
    return eraseUserData(
      parseInput(EraseUserDataInput, { userId: e.data.userId, deletedAt: e.timestamp }),
      deps,
    );
  },
});
