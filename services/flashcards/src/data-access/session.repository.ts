import type { Connection } from 'mongoose';
import type { LearningSession, SessionRepository } from '../domain/ports';
import { type SessionDoc, type SessionResult, sessionModel } from './session.model';

export type { LearningSession, SessionRepository };

const toSession = ({ _id, ...rest }: SessionDoc): LearningSession => ({ id: _id, ...rest });

export function sessionRepository(connection: Connection): SessionRepository {
  const Sessions = sessionModel(connection);
  return {
    async insert(session: LearningSession): Promise<void> {
      const { id, ...rest } = session;
      await Sessions.collection.insertOne({ _id: id, ...rest } as never);
    },
    async find(userId: string, id: string): Promise<LearningSession | null> {
      const doc = await Sessions.findOne({ _id: id, userId }).lean<SessionDoc>();
      return doc ? toSession(doc) : null;
    },
    /** Ends an open session; null when it was already ended (the caller returns the stored result). */
    async end(
      userId: string,
      id: string,
      endedAt: Date,
      result: SessionResult,
    ): Promise<LearningSession | null> {
      const doc = await Sessions.findOneAndUpdate(
        { _id: id, userId, endedAt: null },
        { $set: { endedAt, result } },
        { returnDocument: 'after' },
      ).lean<SessionDoc>();
      return doc ? toSession(doc) : null;
    },
    async deleteAllOfUser(userId: string): Promise<number> {
      return (await Sessions.deleteMany({ userId })).deletedCount;
    },
  };
}
