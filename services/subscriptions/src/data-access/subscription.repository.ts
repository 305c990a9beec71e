import type { Connection, mongo } from 'mongoose';
import type { AnyDomainEvent } from '@lingua/contracts';
import { stageEvents } from '@lingua/events';
import { AppError } from '@lingua/errors';
import { findPage, isDuplicateKeyError } from '@lingua/mongo';
import type { Subscription } from '../domain/subscription';
import type { ListFilter, OwnerQuery, SubscriptionStore } from '../domain/ports';

type SubscriptionDoc = Omit<Subscription, 'id'> & {
  _id: string;
  /** Optimistic-concurrency counter: every write checks and bumps it. */
  _v: number;
  _outbox?: unknown[];
  _outboxPending?: boolean;
};

export const SUBSCRIPTIONS_COLLECTION = 'subscriptions';

export const subscriptionsCollection = (connection: Connection) =>
  connection.collection<SubscriptionDoc>(SUBSCRIPTIONS_COLLECTION);

const PROJECTION = { _outbox: 0, _outboxPending: 0 } as const;

function toSubscription(doc: SubscriptionDoc): Subscription {
  const { _id, _v, _outbox, _outboxPending, ...rest } = doc;
  return { id: _id, ...rest, payments: rest.payments ?? [] };
}

function ownerFilter(owner: OwnerQuery): mongo.Filter<SubscriptionDoc> {
  if (owner.userId) return { userId: owner.userId };
  if (owner.deviceId) return { deviceId: owner.deviceId, userId: null };
  return { _id: '__none__' };
}

function listFilter(base: mongo.Filter<SubscriptionDoc>, f: ListFilter): mongo.Filter<SubscriptionDoc> {
  const filter: mongo.Filter<SubscriptionDoc> = { ...base };
  if (f.status) filter.status = f.status;
  if (f.from || f.to) filter.activatedAt = { ...(f.from && { $gte: f.from }), ...(f.to && { $lte: f.to }) };
  return filter;
}

/**
 * How many times a decision is re-made on a fresh read when another writer got there first. Each
 * round lets at least one racer through, so this bounds how many writers of one subscription at
 * once are all served (a store notification, the app's receipt and a sweep are the usual few).
 */
const MUTATE_ATTEMPTS = 16;
/** A random wait, growing per lost round, so that racers that lost together do not retry together. */
const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));

export function subscriptionRepository(connection: Connection): SubscriptionStore {
  const col = subscriptionsCollection(connection);
  const readDoc = (filter: mongo.Filter<SubscriptionDoc>) => col.findOne(filter, { projection: PROJECTION });

  return {
    async findById(id) {
      const doc = await readDoc({ _id: id });
      return doc ? toSubscription(doc) : undefined;
    },
    async findByStoreKey(storeKey) {
      const doc = await readDoc({ storeKey });
      return doc ? toSubscription(doc) : undefined;
    },
    async latestFor(owner, now) {
      const lastEnding = (filter: mongo.Filter<SubscriptionDoc>) =>
        col.find(filter, { projection: PROJECTION }).sort({ expiresAt: -1 }).limit(1).toArray();
      // one that gives access wins over one ending later that does not (pending, ended early, expired)
      const [entitling] = await lastEnding({
        ...ownerFilter(owner),
        status: { $in: ['active', 'cancelled'] },
        expiresAt: { $gt: now },
      });
      const doc = entitling ?? (await lastEnding(ownerFilter(owner)))[0];
      return doc ? toSubscription(doc) : undefined;
    },
    async exists(owner) {
      const filter: mongo.Filter<SubscriptionDoc> = owner.userId
        ? { userId: owner.userId }
        : { deviceId: owner.deviceId ?? '__none__' };
      return (await col.countDocuments(filter, { limit: 1 })) > 0;
    },
    async listFor(owner, filter, cap) {
      const docs = await col
        .find(listFilter(ownerFilter(owner), filter), { projection: PROJECTION })
        .sort({ activatedAt: -1 })
        .limit(cap)
        .toArray();
      return docs.map(toSubscription);
    },
    async list(owner, filter, skip, limit) {
      // administrators: any owner, or the given user / device
      const base: mongo.Filter<SubscriptionDoc> = {
        ...(owner.userId && { userId: owner.userId }),
        ...(owner.deviceId && { deviceId: owner.deviceId }),
      };
      const query = listFilter(base, filter);
      const { docs, total } = await findPage(col, query, {
        sort: { activatedAt: -1, _id: 1 },
        skip,
        limit,
        projection: PROJECTION,
      });
      return { items: docs.map(toSubscription), total };
    },
    async dueForExpiry(before, limit) {
      const docs = await col
        .find(
          {
            status: { $in: ['active', 'cancelled', 'pending'] },
            expiresAt: { $lte: before },
            endedEarly: { $ne: true },
          },
          { projection: { _id: 1 } },
        )
        .limit(limit)
        .toArray();
      return docs.map((d) => d._id);
    },
    async usersChangedSince(since, limit) {
      const docs = await col
        .find({ updatedAt: { $gte: since }, userId: { $ne: null } }, { projection: { userId: 1 } })
        .sort({ updatedAt: -1 })
        .limit(limit)
        .toArray();
      return [...new Set(docs.map((d) => d.userId!))];
    },
    async insert(sub, events: AnyDomainEvent[]) {
      const { id, ...rest } = sub;
      try {
        await col.insertOne({ _id: id, ...rest, _v: 1, ...stageEvents(...events).fields } as SubscriptionDoc);
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    /**
     * Optimistic concurrency: the decision is made on a read and written only if the document is
     * still at that read's version (one atomic conditional update, which also bumps it). When another
     * writer got there first, the decision is made again on the new state, so no change is ever
     * applied to a state it did not see. The outbox relay does not bump the version: its `$pull` of a
     * published event is an atomic update of its own and never conflicts.
     */
    async mutate(id, decide, beforeWrite) {
      for (let attempt = 0; attempt < MUTATE_ATTEMPTS; attempt++) {
        const doc = await col.findOne({ _id: id }, { projection: PROJECTION });
        if (!doc) return undefined;
        const current = toSubscription(doc);
        const decided = decide(current);
        if (!decided) return current;
        const decision = beforeWrite ? await beforeWrite(decided) : decided;
        const { id: _ignored, ...fields } = decision.next;
        const staged = decision.events.length ? stageEvents(...decision.events).update : undefined;
        const update = {
          $set: { ...fields, ...staged?.$set, _v: doc._v + 1 },
          ...(staged && { $push: staged.$push }),
        };
        const result = await col.updateOne(
          { _id: id, _v: doc._v },
          update as unknown as mongo.UpdateFilter<SubscriptionDoc>,
        );
        if (result.matchedCount === 1) return decision.next;
        await backoff(attempt);
      }
      throw new AppError('CONFLICT', 'The subscription is being changed concurrently; try again');
    },
  };
}
