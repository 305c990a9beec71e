import type { GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import type { UserRepository } from '../../data-access/user.repository';
import { getUser } from '../../domain/get-user.use-case';
import type { User } from '../../domain/user';

const toProto = (u: User) => ({
  user_id: u.id,
  email: u.email,
  username: u.username,
  role: u.role,
  subscription_status: u.subscriptionStatus,
  created_at: u.createdAt.toISOString(),
});

/** IdentityService: proto ↔ domain mapping only. */
export function registerIdentityGrpc(server: GrpcServer, deps: { users: UserRepository }): void {
  server.addService(loadPackage().lingua.identity.v1.IdentityService.service, {
    GetUser: async (req) => ({ user: toProto(await getUser({ userId: req.user_id }, deps)) }),
    ResolveUser: async (req) => ({
      user: toProto(
        await getUser(req.key === 'email' ? { email: req.email } : { userId: req.user_id }, deps),
      ),
    }),
  });
}
