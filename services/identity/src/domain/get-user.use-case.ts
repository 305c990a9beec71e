import { z } from 'zod';
import { AppError } from '@lingua/errors';
import type { UserRepository } from './ports';
import type { User } from './user';

export const GetUserInput = z.union([
  z.object({ userId: z.string().min(1) }),
  z.object({ email: z.string().min(1) }),
]);
export type GetUserInput = z.infer<typeof GetUserInput>;

/** Looks a user up by id or e-mail, for services that only hold one of them. */
export async function getUser(
  input: z.output<typeof GetUserInput>,
  deps: { users: UserRepository },
): Promise<User> {
  const user =
    'userId' in input ? await deps.users.findById(input.userId) : await deps.users.findByEmail(input.email);
  if (!user) throw new AppError('NOT_FOUND', 'User not found');
  return user;
}
