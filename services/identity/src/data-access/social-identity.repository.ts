import type { SocialIdentityRepository, SocialProvider } from '../domain/ports';
import { type Connection, type Model, Schema } from 'mongoose';
import { isDuplicateKeyError } from '@lingua/mongo';

/** Provider subject → user: `_id` is `<provider>:<sub>`, so one subject links to exactly one user. */
interface SocialIdentityDocument {
  _id: string;
  provider: SocialProvider;
  subject: string;
  userId: string;
  createdAt: Date;
  /** Apple's refresh token from the authorization-code exchange: what revoking the grant needs. */
  providerRefreshToken?: string | null;
}

const identitySchema = new Schema<SocialIdentityDocument>(
  {
    _id: { type: String, required: true },
    provider: { type: String, required: true },
    subject: { type: String, required: true },
    userId: { type: String, required: true },
    createdAt: { type: Date, required: true },
    providerRefreshToken: { type: String, default: null },
  },
  { versionKey: false, collection: 'social_identities' },
);

const identityModel = (connection: Connection): Model<SocialIdentityDocument> =>
  (connection.models.SocialIdentity as Model<SocialIdentityDocument> | undefined) ??
  connection.model<SocialIdentityDocument>('SocialIdentity', identitySchema);

export function socialIdentityRepository(connection: Connection): SocialIdentityRepository {
  const Identities = identityModel(connection);
  const key = (provider: SocialProvider, subject: string) => `${provider}:${subject}`;
  return {
    async findUserId(provider: SocialProvider, subject: string): Promise<string | undefined> {
      const doc = await Identities.findById(key(provider, subject)).lean<SocialIdentityDocument>();
      return doc?.userId;
    },
    /** Links the subject to userId; if another request linked it first, returns that user id instead. */
    async link(provider: SocialProvider, subject: string, userId: string, now: Date): Promise<string> {
      try {
        await Identities.create({ _id: key(provider, subject), provider, subject, userId, createdAt: now });
        return userId;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        const existing = await Identities.findById(key(provider, subject)).lean<SocialIdentityDocument>();
        return existing?.userId ?? userId;
      }
    },
    async saveProviderRefreshToken(provider: SocialProvider, subject: string, token: string): Promise<void> {
      await Identities.updateOne({ _id: key(provider, subject) }, { $set: { providerRefreshToken: token } });
    },
    /** The provider refresh tokens kept for a user (to revoke them when the account is deleted). */
    async providerRefreshTokensOf(userId: string): Promise<{ provider: SocialProvider; token: string }[]> {
      const docs = await Identities.find({ userId }).lean<SocialIdentityDocument[]>();
      return docs.flatMap((d) =>
        d.providerRefreshToken ? [{ provider: d.provider, token: d.providerRefreshToken }] : [],
      );
    },
    async unlinkAll(userId: string): Promise<void> {
      await Identities.deleteMany({ userId });
    },
  };
}
export type { SocialProvider, SocialIdentityRepository };
