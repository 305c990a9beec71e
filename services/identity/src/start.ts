import { type ServiceDefinition, startService } from '@lingua/bootstrap';
import type { IdentityConfig } from './config';
import { userModel } from './data-access/user.model';
import { userRepository } from './data-access/user.repository';
import { registerIdentityGrpc } from './entry-points/grpc/identity.grpc';

/** Wiring of the identity service; feature routes arrive with the identity issue. */
export function defineIdentityService(config: IdentityConfig): ServiceDefinition<IdentityConfig> {
  return {
    config,
    useRedis: true,
    grpc: (server, deps) => registerIdentityGrpc(server, { users: userRepository(deps.mongo.connection) }),
    outboxCollections: (deps) => [userModel(deps.mongo.connection).collection],
  };
}

export const start = (config: IdentityConfig) => startService(defineIdentityService(config));
