import { type Connection, type Model, Schema } from 'mongoose';
import { outboxFields } from '@lingua/events';

export interface UserDocument {
  _id: string;
  email: string;
  username: string;
  role: 'user' | 'subscriber' | 'admin';
  subscriptionStatus: 'active' | 'inactive' | 'trial';
  createdAt: Date;
  updatedAt: Date;
}

const userSchema = new Schema<UserDocument>(
  {
    _id: { type: String, required: true },
    email: { type: String, required: true },
    username: { type: String, required: true },
    role: { type: String, enum: ['user', 'subscriber', 'admin'], default: 'user' },
    subscriptionStatus: { type: String, enum: ['active', 'inactive', 'trial'], default: 'inactive' },
    ...outboxFields,
  },
  { timestamps: true, versionKey: false },
);
// index: sign-in and the EMAIL_EXISTS conflict (e-mails are stored lower-cased)
userSchema.index({ email: 1 }, { unique: true });
// index: the USERNAME_EXISTS conflict
userSchema.index({ username: 1 }, { unique: true });

export const userModel = (connection: Connection): Model<UserDocument> =>
  (connection.models.User as Model<UserDocument> | undefined) ??
  connection.model<UserDocument>('User', userSchema);
