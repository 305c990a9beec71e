import { type Connection, type Model, Schema } from 'mongoose';
import type { IssuedAccessToken, RefreshFamily, RefreshFamilyRepository } from '../domain/ports';

/**
 * One document per sign-in (a "family"): the hash of its current refresh token and of the last tokens
 * it replaced (a bounded history). Rotation is one atomic single-document update; presenting a
 * replaced token is reuse.
 */
export type RefreshFamilyDocument = Omit<RefreshFamily, 'id'> & { _id: string };

const familySchema = new Schema<RefreshFamilyDocument>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    currentHash: { type: String, required: true },
    previousHashes: { type: [String], default: [] },
    rememberMe: { type: Boolean, default: true },
    createdAt: { type: Date, required: true },
    rotatedAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    absoluteExpiresAt: { type: Date },
    revokedAt: { type: Date, default: null },
    revokedReason: { type: String, default: null },
    accessTokens: { type: [{ _id: false, jti: String, exp: Number }], default: [] },
  },
  { versionKey: false, collection: 'refresh_families' },
);

const familyModel = (connection: Connection): Model<RefreshFamilyDocument> =>
  (connection.models.RefreshFamily as Model<RefreshFamilyDocument> | undefined) ??
  connection.model<RefreshFamilyDocument>('RefreshFamily', familySchema);

const toFamily = ({ _id, ...rest }: RefreshFamilyDocument): RefreshFamily => ({ id: _id, ...rest });

/**
 * `historyLimit`: how many replaced token hashes and issued access tokens a family keeps (the newest);
 * each rotation pushes one of each and drops the oldest beyond it, so the document stays bounded.
 */
export function refreshFamilyRepository(
  connection: Connection,
  options: { historyLimit: number },
): RefreshFamilyRepository {
  const Families = familyModel(connection);
  const keepNewest = <T>(item: T) => ({ $each: [item], $slice: -options.historyLimit });
  return {
    async create(family: {
      id: string;
      userId: string;
      tokenHash: string;
      rememberMe: boolean;
      now: Date;
      expiresAt: Date;
      absoluteExpiresAt: Date;
      accessToken: IssuedAccessToken;
    }): Promise<void> {
      await Families.create({
        _id: family.id,
        userId: family.userId,
        currentHash: family.tokenHash,
        previousHashes: [],
        rememberMe: family.rememberMe,
        createdAt: family.now,
        rotatedAt: family.now,
        expiresAt: family.expiresAt,
        absoluteExpiresAt: family.absoluteExpiresAt,
        accessTokens: [family.accessToken],
      });
    },
    /** Swaps the current token for a new one if `tokenHash` is current, live and unexpired; else undefined. */
    async rotate(
      id: string,
      tokenHash: string,
      next: {
        tokenHash: string;
        now: Date;
        expiresAt: Date;
        absoluteExpiresAt: Date;
        accessToken: IssuedAccessToken;
      },
    ): Promise<RefreshFamily | undefined> {
      const doc = await Families.findOneAndUpdate(
        { _id: id, currentHash: tokenHash, revokedAt: null, expiresAt: { $gt: next.now } },
        {
          $set: {
            currentHash: next.tokenHash,
            rotatedAt: next.now,
            expiresAt: next.expiresAt,
            // unchanged, or set once on a sign-in from before absolute expiry existed
            absoluteExpiresAt: next.absoluteExpiresAt,
          },
          $push: { previousHashes: keepNewest(tokenHash), accessTokens: keepNewest(next.accessToken) },
        },
        { returnDocument: 'after' },
      ).lean<RefreshFamilyDocument>();
      return doc ? toFamily(doc) : undefined;
    },
    async findById(id: string): Promise<RefreshFamily | undefined> {
      const doc = await Families.findById(id).lean<RefreshFamilyDocument>();
      return doc ? toFamily(doc) : undefined;
    },
    async findByAccessToken(jti: string): Promise<RefreshFamily | undefined> {
      const doc = await Families.findOne({ 'accessTokens.jti': jti }).lean<RefreshFamilyDocument>();
      return doc ? toFamily(doc) : undefined;
    },
    async revoke(id: string, reason: string, now: Date): Promise<RefreshFamily | undefined> {
      await Families.updateOne(
        { _id: id, revokedAt: null },
        { $set: { revokedAt: now, revokedReason: reason } },
      );
      // read after the write: a rotation that won the race is in it, and none can follow
      const doc = await Families.findById(id).lean<RefreshFamilyDocument>();
      return doc ? toFamily(doc) : undefined;
    },
    /** Forgets sign-ins that expired before `before` (they can no longer be refreshed or reused). */
    async deleteExpired(before: Date): Promise<number> {
      return (await Families.deleteMany({ expiresAt: { $lt: before } })).deletedCount;
    },
    async revokeAllOfUser(
      userId: string,
      reason: string,
      now: Date,
    ): Promise<{ ended: number; accessTokens: IssuedAccessToken[] }> {
      const r = await Families.updateMany(
        { userId, revokedAt: null },
        { $set: { revokedAt: now, revokedReason: reason } },
      );
      // After the write, so a rotation that raced it is seen; only families with a token still
      // alive (an access token lives an hour), whichever revocation ended them.
      const nowSeconds = Math.floor(now.getTime() / 1000);
      const revoked = await Families.find(
        { userId, revokedAt: { $ne: null }, 'accessTokens.exp': { $gt: nowSeconds } },
        { accessTokens: 1 },
      ).lean<Pick<RefreshFamilyDocument, 'accessTokens'>[]>();
      const accessTokens = revoked.flatMap((f) => f.accessTokens.filter((t) => t.exp > nowSeconds));
      return { ended: r.modifiedCount, accessTokens };
    },
    async deleteAllOfUser(userId: string): Promise<number> {
      return (await Families.deleteMany({ userId })).deletedCount;
    },
  };
}
export type { IssuedAccessToken, RefreshFamily, RefreshFamilyRepository };
