import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from '@lingua/mongo';
import type { Device, DeviceStore } from '../domain/devices.use-case';

export const DEVICES_COLLECTION = 'devices';

interface DeviceDocument extends Omit<Device, 'id'> {
  _id: string;
  /** SHA-256 of the token, unique: one token, one device (an FCM token can be 4 KB, too long to index). */
  tokenKey: string;
}

const tokenKey = (token: string) => createHash('sha256').update(token).digest('hex');

const toDevice = ({ _id, tokenKey: _key, ...d }: DeviceDocument): Device => ({ id: _id, ...d });

export function deviceRepository(connection: Connection): DeviceStore {
  const devices = () => connection.db!.collection<DeviceDocument>(DEVICES_COLLECTION);
  return {
    async touch(userId, token, update) {
      const doc = await devices().findOneAndUpdate(
        { tokenKey: tokenKey(token), userId },
        { $set: update },
        { returnDocument: 'after' },
      );
      return doc ? toDevice(doc) : null;
    },
    async releaseToken(token, userId) {
      // never the caller's own: a concurrent registration of theirs may have just inserted it
      await devices().deleteOne({ tokenKey: tokenKey(token), userId: { $ne: userId } });
    },
    async insert({ id, ...device }) {
      try {
        await devices().insertOne({ _id: id, tokenKey: tokenKey(device.token), ...device });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    async trim(userId, keep) {
      const beyond = await devices()
        .find({ userId }, { projection: { _id: 1 } })
        .sort({ lastSeenAt: -1, createdAt: -1 })
        .skip(keep)
        .toArray();
      if (beyond.length) await devices().deleteMany({ _id: { $in: beyond.map((d) => d._id) }, userId });
    },
    async listOf(userId) {
      const docs = await devices().find({ userId }).sort({ lastSeenAt: -1, createdAt: -1 }).toArray();
      return docs.map(toDevice);
    },
    async remove(userId, deviceId) {
      return (await devices().deleteOne({ _id: deviceId, userId })).deletedCount === 1;
    },
    async removeToken(userId, token, seenBy) {
      const r = await devices().deleteOne({
        tokenKey: tokenKey(token),
        userId,
        lastSeenAt: { $lte: seenBy },
      });
      return r.deletedCount === 1;
    },
    async deleteAllOfUser(userId) {
      await devices().deleteMany({ userId });
    },
  };
}
