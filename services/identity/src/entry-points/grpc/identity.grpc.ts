import { parseInput } from '@lingua/errors';
import type { GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import type { UserRepository } from '../../domain/ports';
import { GetUserInput, getUser } from '../../domain/get-user.use-case';
import type { User } from '../../domain/user';

const toProto = (u: User) => ({
  user_id: u.id,
  email: u.email,
  username: u.username,
  role: u.role,
  subscription_status: u.subscriptionStatus,
  created_at: u.createdAt.toISOString(),
});

/** IdentityService: proto ↔ domain mapping only; notifications asks GetUser (webhook owners), operators may. */
export function registerIdentityGrpc(server: GrpcServer, deps: { users: UserRepository }): void {
  server.addService(
    loadPackage().lingua.identity.v1.IdentityService.service,
    {
      GetUser: async (req) => ({
        user: toProto(
          await getUser(
            parseInput(GetUserInput, { userId: req.user_id }, 'A user id or an e-mail is required'),
            deps,
          ),
        ),
      }),
      ResolveUser: async (req) => ({
        user: toProto(
          await getUser(
            parseInput(
              GetUserInput,
              req.key === 'email' ? { email: req.email } : { userId: req.user_id },
              'A user id or an e-mail is required',
            ),
            deps,
          ),
        ),
      }),
    },
    // notifications: whether a scope-all webhook's owner is still an admin
    { GetUser: ['notifications'], ResolveUser: [] },
  );
}
