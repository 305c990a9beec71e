import type { OneTimeTokenKind, OneTimeTokenRepository } from '../domain/ports';
import { type Connection, type Model, Schema } from 'mongoose';
import type { AnyDomainEvent } from '@lingua/contracts';
import { stageEvents } from '@lingua/events';

/** E-mail verification and password-reset tokens: only their SHA-256 is stored, and each works once. */
interface OneTimeTokenDocument {
  _id: string; // sha256 of the token
  kind: OneTimeTokenKind;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  _outbox?: unknown[];
  _outboxPending?: boolean;
}

const tokenSchema = new Schema<OneTimeTokenDocument>(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true },
    userId: { type: String, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
    // The e-mail request event travels in the token's own insert (outbox).
    _outbox: { type: [Object], default: undefined },
    _outboxPending: { type: Boolean },
  },
  { versionKey: false, collection: 'one_time_tokens' },
);

const tokenModel = (connection: Connection): Model<OneTimeTokenDocument> =>
  (connection.models.OneTimeToken as Model<OneTimeTokenDocument> | undefined) ??
  connection.model<OneTimeTokenDocument>('OneTimeToken', tokenSchema);

/** Every update is one atomic single-document write (see user.repository). */
export function oneTimeTokenRepository(connection: Connection): OneTimeTokenRepository {
  const Tokens = tokenModel(connection);
  return {
    async create(
      t: { hash: string; kind: OneTimeTokenKind; userId: string; now: Date; expiresAt: Date },
      events: AnyDomainEvent[] = [],
    ) {
      await Tokens.create({
        _id: t.hash,
        kind: t.kind,
        userId: t.userId,
        createdAt: t.now,
        expiresAt: t.expiresAt,
        ...(events.length > 0 ? stageEvents(...events).fields : {}),
      });
    },
    /**
     * Marks the token used if it is unused and unexpired, in one conditional write: of concurrent
     * redemptions exactly one matches `usedAt: null`, so a token works exactly once.
     */
    async consume(hash: string, kind: OneTimeTokenKind, now: Date): Promise<{ userId: string } | undefined> {
      const before = await Tokens.collection.findOneAndUpdate(
        { _id: hash, kind, usedAt: null, expiresAt: { $gt: now } } as never,
        { $set: { usedAt: now } },
        { returnDocument: 'before', projection: { userId: 1 } },
      );
      return before ? { userId: String(before.userId) } : undefined;
    },
    /** Forgets tokens that expired before `before`, except any whose events still wait for the outbox relay. */
    async deleteExpired(before: Date): Promise<number> {
      const r = await Tokens.deleteMany({ expiresAt: { $lt: before }, _outboxPending: { $ne: true } });
      return r.deletedCount;
    },
    async invalidateAll(userId: string, kind: OneTimeTokenKind, now: Date): Promise<void> {
      await Tokens.updateMany({ userId, kind, usedAt: null }, { $set: { usedAt: now } });
    },
    async deleteAllOfUser(userId: string): Promise<number> {
      // an e-mail event still staged on one goes with it: nothing is sent to a deleted account
      return (await Tokens.deleteMany({ userId })).deletedCount;
    },
  };
}
export const oneTimeTokenCollection = (connection: Connection) => tokenModel(connection).collection;
export type { OneTimeTokenKind, OneTimeTokenRepository };
