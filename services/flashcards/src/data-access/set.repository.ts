import type { Connection } from 'mongoose';
import { type CardSet, MAX_SETS_PER_USER, type SetRepository } from '../domain/ports';
import { type SetDoc, setModel } from './set.model';

export type { CardSet, SetRepository };

const toSet = ({ _id, ...rest }: SetDoc): CardSet => ({ id: _id, ...rest });

export function setRepository(connection: Connection): SetRepository {
  const Sets = setModel(connection);
  return {
    async insert(set: CardSet): Promise<CardSet> {
      const { id, ...rest } = set;
      await Sets.collection.insertOne({ _id: id, ...rest } as never);
      return set;
    },
    async find(userId: string, id: string): Promise<CardSet | null> {
      const doc = await Sets.findOne({ _id: id, userId }).lean<SetDoc>();
      return doc ? toSet(doc) : null;
    },
    async listAll(userId: string): Promise<CardSet[]> {
      const docs = await Sets.find({ userId })
        .sort({ createdAt: -1 })
        .limit(MAX_SETS_PER_USER)
        .lean<SetDoc[]>();
      return docs.map(toSet);
    },
    async count(userId: string): Promise<number> {
      return Sets.countDocuments({ userId });
    },
    async update(userId: string, id: string, set: Partial<SetDoc>): Promise<CardSet | null> {
      const doc = await Sets.findOneAndUpdate(
        { _id: id, userId },
        { $set: set },
        { returnDocument: 'after' },
      ).lean<SetDoc>();
      return doc ? toSet(doc) : null;
    },
    async remove(userId: string, id: string): Promise<boolean> {
      return (await Sets.deleteOne({ _id: id, userId })).deletedCount === 1;
    },
    async deleteAllOfUser(userId: string): Promise<number> {
      return (await Sets.deleteMany({ userId })).deletedCount;
    },
  };
}
