import type { Connection } from 'mongoose';
import type { EndpointStore, WebhookEndpoint } from '../domain/webhook';
import { findPage } from '@lingua/mongo';

type EndpointDoc = Omit<WebhookEndpoint, 'id'> & { _id: string };

const toEndpoint = ({ _id, ...d }: EndpointDoc): WebhookEndpoint => ({ ...d, id: _id });

export function webhookEndpointRepository(
  connection: Connection,
): EndpointStore & { listEnabled(): Promise<WebhookEndpoint[]> } {
  const col = connection.collection<EndpointDoc>('webhook_endpoints');
  return {
    async insert({ id, ...rest }) {
      await col.insertOne({ _id: id, ...rest });
    },
    async get(id) {
      const doc = await col.findOne({ _id: id });
      return doc ? toEndpoint(doc) : null;
    },
    countByOwner: (ownerId) => col.countDocuments({ ownerId }),
    async list(filter, page, limit) {
      const query = filter.ownerId ? { ownerId: filter.ownerId } : {};
      const { docs, total } = await findPage(col, query, {
        sort: { createdAt: -1, _id: 1 },
        skip: (page - 1) * limit,
        limit,
      });
      return { items: docs.map(toEndpoint), total };
    },
    async update(id, set) {
      const { id: _ignored, ...fields } = set;
      const doc = await col.findOneAndUpdate({ _id: id }, { $set: fields }, { returnDocument: 'after' });
      return doc ? toEndpoint(doc) : null;
    },
    async remove(id) {
      return (await col.deleteOne({ _id: id })).deletedCount === 1;
    },
    async listEnabled() {
      return (await col.find({ enabled: true }).toArray()).map(toEndpoint);
    },
    async subscribers(eventName, subjectUserId) {
      const all = { scope: 'all' as const };
      const who = subjectUserId === null ? [all] : [all, { ownerId: subjectUserId }];
      const docs = await col
        .find({ enabled: true, events: eventName as WebhookEndpoint['events'][number], $or: who })
        .toArray();
      return docs.map(toEndpoint);
    },
    async recordSuccess(id) {
      await col.updateOne(
        { _id: id },
        { $set: { consecutiveFailures: 0, circuitOpenUntil: null, failingSince: null } },
      );
    },
    async recordFailure(id, at) {
      // failingSince is set by the first failure after a success and kept until the next success
      await col.updateOne({ _id: id, failingSince: null }, { $set: { failingSince: at } });
      const doc = await col.findOneAndUpdate(
        { _id: id },
        { $inc: { consecutiveFailures: 1 } },
        { returnDocument: 'after' },
      );
      return doc ? toEndpoint(doc) : null;
    },
    async disableAllOwnedBy(ownerId, reason, at) {
      const r = await col.updateMany(
        { ownerId, enabled: true },
        { $set: { enabled: false, disabledReason: reason, updatedAt: at } },
      );
      return r.modifiedCount;
    },
    async removeAllOwnedBy(ownerId) {
      const ids = (await col.find({ ownerId }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
      if (ids.length > 0) await col.deleteMany({ _id: { $in: ids } });
      return ids;
    },
    async claimProbe(id, now, reopenUntil) {
      const doc = await col.findOneAndUpdate(
        { _id: id, $or: [{ circuitOpenUntil: null }, { circuitOpenUntil: { $lte: now } }] },
        { $set: { circuitOpenUntil: reopenUntil } },
      );
      return doc !== null;
    },
  };
}
