import type { Connection } from 'mongoose';
import type { User } from '../domain/user';
import { userModel, type UserDocument } from './user.model';

const toUser = (d: UserDocument): User => ({
  id: d._id,
  email: d.email,
  username: d.username,
  role: d.role,
  subscriptionStatus: d.subscriptionStatus,
  createdAt: d.createdAt,
});

/** Plain objects out, never mongoose documents. */
export function userRepository(connection: Connection) {
  const Users = userModel(connection);
  return {
    async findById(id: string): Promise<User | undefined> {
      const doc = await Users.findById(id).lean<UserDocument>();
      return doc ? toUser(doc) : undefined;
    },
    async findByEmail(email: string): Promise<User | undefined> {
      const doc = await Users.findOne({ email: email.toLowerCase() }).lean<UserDocument>();
      return doc ? toUser(doc) : undefined;
    },
  };
}
export type UserRepository = ReturnType<typeof userRepository>;
