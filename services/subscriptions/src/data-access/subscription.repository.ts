import type { Connection } from 'mongoose';
import type { ActiveSubscription, SubscriptionLookup } from '../domain/entitlements.use-case';

export function subscriptionLookup(connection: Connection): SubscriptionLookup {
  const subs = connection.collection<{ userId?: string; deviceId?: string } & ActiveSubscription>(
    'subscriptions',
  );
  return {
    async latestFor({ userId, deviceId }) {
      const filter = userId ? { userId } : { deviceId };
      const [doc] = await subs.find(filter).sort({ expiresAt: -1 }).limit(1).toArray();
      return doc ? { status: doc.status, expiresAt: new Date(doc.expiresAt) } : undefined;
    },
  };
}
