import type { ShardDeclaration, ShardedDatabase } from '@lingua/mongo';
import { aiShardKeys } from '../../services/ai/src/data-access/indexes';
import { flashcardsShardKeys } from '../../services/flashcards/src/data-access/indexes';
import { identityShardKeys } from '../../services/identity/src/data-access/indexes';
import { notificationsShardKeys } from '../../services/notifications/src/data-access/indexes';
import { subscriptionsShardKeys } from '../../services/subscriptions/src/data-access/indexes';

/** Every service's shard declarations (each kept next to its index list), by service name. */
export const SHARD_DECLARATIONS: Record<
  'identity' | 'flashcards' | 'subscriptions' | 'ai' | 'notifications',
  readonly ShardDeclaration[]
> = {
  identity: identityShardKeys,
  flashcards: flashcardsShardKeys,
  subscriptions: subscriptionsShardKeys,
  ai: aiShardKeys,
  notifications: notificationsShardKeys,
};

/** The databases as deploy/mongo/shard-collections.js names them (the services' defaults, `lingua_<service>`). */
export const SHARDED_DATABASES: ShardedDatabase[] = Object.entries(SHARD_DECLARATIONS).map(
  ([service, declarations]) => ({
    env: `${service.toUpperCase()}_MONGO_DB`,
    defaultName: `lingua_${service}`,
    declarations,
  }),
);
