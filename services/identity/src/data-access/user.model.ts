import { type Connection, type Model, Schema } from 'mongoose';
import { outboxFields } from '@lingua/events';
import type { AuthProvider, Role, SubscriptionStatus, UserProfile, UserSettings } from '../domain/user';

export interface UserDocument {
  _id: string;
  email: string;
  username: string;
  /** Lower-cased username: uniqueness is case-insensitive ("Anna" and "anna" are one name). */
  usernameKey: string;
  passwordHash?: string | null;
  role: Role;
  subscriptionStatus: SubscriptionStatus;
  /** Timestamp of the last subscription event applied (events may arrive out of order). */
  subscriptionSyncedAt?: Date | null;
  /** The user's entitlement version of the last subscription event applied (subscriptions' counter). */
  subscriptionVersion?: number | null;
  emailVerified: boolean;
  authProvider: AuthProvider;
  profile?: Partial<UserProfile>;
  settings?: Partial<UserSettings>;
  lastLoginAt?: Date | null;
  deletedAt?: Date | null;
  /** The reason the user gave when deleting the account (kept here, never put on an event). */
  deletionReason?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const userSchema = new Schema<UserDocument>(
  {
    _id: { type: String, required: true },
    email: { type: String, required: true },
    username: { type: String, required: true },
    usernameKey: { type: String },
    passwordHash: { type: String, default: null, select: false },
    role: { type: String, enum: ['user', 'subscriber', 'admin'], default: 'user' },
    subscriptionStatus: { type: String, enum: ['active', 'inactive', 'trial'], default: 'inactive' },
    subscriptionSyncedAt: { type: Date, default: null },
    subscriptionVersion: { type: Number, default: null },
    emailVerified: { type: Boolean, default: false },
    authProvider: { type: String, enum: ['password', 'apple', 'google'], default: 'password' },
    profile: { type: Object, default: {} },
    settings: { type: Object, default: {} },
    lastLoginAt: { type: Date, default: null },
    deletedAt: { type: Date, default: null },
    deletionReason: { type: String, default: null },
    ...outboxFields,
  },
  { timestamps: true, versionKey: false, minimize: false },
);
// the unique index is on usernameKey: a document saved without one (a fixture, a script) would hold
// the index's one null and make the next such save fail, so the model derives it
userSchema.pre('validate', function deriveUsernameKey() {
  if (this.username && !this.usernameKey) this.usernameKey = this.username.toLowerCase();
});

export const userModel = (connection: Connection): Model<UserDocument> =>
  (connection.models.User as Model<UserDocument> | undefined) ??
  connection.model<UserDocument>('User', userSchema);
