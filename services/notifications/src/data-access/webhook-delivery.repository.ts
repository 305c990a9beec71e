import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { AttemptRecord, ClaimedDelivery, DeliveryStore, WebhookDelivery } from '../domain/webhook';
import { findPage, isDuplicateKeyError } from '@lingua/mongo';
import { batchedInserts } from './batched-inserts';

type DeliveryDoc = Omit<WebhookDelivery, 'id'> & { _id: string };
type AttemptDoc = AttemptRecord & { _id: string };

const toDelivery = ({ _id, ...d }: DeliveryDoc): WebhookDelivery => ({
  ...d,
  id: _id,
  version: d.version ?? 0,
});

export function webhookDeliveryRepository(connection: Connection): DeliveryStore {
  const col = connection.collection<DeliveryDoc>('webhook_deliveries');
  const attempts = connection.collection<AttemptDoc>('webhook_attempts');
  // inserts of concurrent events go to the database together (one statement per batch)
  const deliveryInserts = batchedInserts(col);
  const attemptInserts = batchedInserts(attempts);

  return {
    // the _id is (endpoint, event): a redelivered or re-published event cannot queue it twice
    createIfAbsent: ({ id, ...rest }) => deliveryInserts.insert({ _id: id, ...rest }),
    async get(id) {
      const doc = await col.findOne({ _id: id });
      return doc ? toDelivery(doc) : null;
    },
    async list(filter, page, limit) {
      const query = { endpointId: filter.endpointId, ...(filter.status && { status: filter.status }) };
      const { docs, total } = await findPage(col, query, {
        sort: { createdAt: -1, _id: 1 },
        skip: (page - 1) * limit,
        limit,
      });
      return { items: docs.map(toDelivery), total };
    },
    async due(now, limit) {
      const docs = await col
        .find({ status: 'pending', nextAttemptAt: { $lte: now } })
        .sort({ nextAttemptAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toDelivery);
    },
    async claim(d, now, leaseMs) {
      const doc = await col.findOneAndUpdate(
        { _id: d.id, version: d.version, status: 'pending' },
        { $set: { nextAttemptAt: new Date(now.getTime() + leaseMs), updatedAt: now }, $inc: { version: 1 } },
        { returnDocument: 'after' },
      );
      return doc ? toDelivery(doc) : null;
    },
    async insertClaimed({ id, ...rest }) {
      try {
        await col.insertOne({ _id: id, ...rest });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    async settle(d: ClaimedDelivery, set, now) {
      const r = await col.updateOne(
        { _id: d.id, version: d.version },
        { $set: { ...set, updatedAt: now }, $inc: { version: 1 } },
      );
      return r.modifiedCount === 1;
    },
    async postpone(d, until, now) {
      const r = await col.updateOne(
        { _id: d.id, version: d.version },
        { $set: { nextAttemptAt: until, updatedAt: now }, $inc: { version: 1 } },
      );
      return r.modifiedCount === 1;
    },
    async replay(id, now) {
      const doc = await col.findOneAndUpdate(
        { _id: id, status: { $in: ['failed', 'succeeded'] } },
        {
          $set: { status: 'pending', attempts: 0, nextAttemptAt: now, completedAt: null, updatedAt: now },
          $inc: { replays: 1, version: 1 },
        },
        { returnDocument: 'after' },
      );
      return doc ? toDelivery(doc) : null;
    },
    async replayFailed(endpointId, now) {
      const r = await col.updateMany(
        { endpointId, status: 'failed' },
        {
          $set: { status: 'pending', attempts: 0, nextAttemptAt: now, completedAt: null, updatedAt: now },
          $inc: { replays: 1, version: 1 },
        },
      );
      return r.modifiedCount;
    },
    async removeAllOfEndpoints(endpointIds) {
      if (endpointIds.length === 0) return 0;
      const { deletedCount } = await col.deleteMany({ endpointId: { $in: endpointIds } });
      await attempts.deleteMany({ endpointId: { $in: endpointIds } });
      return deletedCount;
    },
    async recordAttempt(a) {
      await attemptInserts.insert({ _id: randomUUID(), ...a });
    },
    async attemptsOf(deliveryId, limit) {
      const docs = await attempts.find({ deliveryId }).sort({ at: -1 }).limit(limit).toArray();
      return docs.map(({ _id: _ignored, ...a }) => a);
    },
  };
}
