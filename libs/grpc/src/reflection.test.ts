import { status } from '@grpc/grpc-js';
import { loadPackage } from '@lingua/proto';
import { silentLogger } from '@lingua/testing';
import { createGrpcServer, type GrpcServer } from './create-grpc-server';
import { reflectServer } from './reflection-client';

const proto = loadPackage();
const IDENTITY = 'lingua.identity.v1.IdentityService';

async function identityServer(
  reflection: boolean | undefined,
): Promise<{ server: GrpcServer; address: string }> {
  const server = createGrpcServer({
    logger: silentLogger(),
    serviceName: 'identity',
    callers: {},
    ...(reflection !== undefined && { reflection }),
  });
  // reflection answers without a call assertion (grpcurl list), like health
  server.addService(
    proto.lingua.identity.v1.IdentityService.service,
    {
      GetUser: () => ({ user: null }),
      ResolveUser: () => ({ user: null }),
      GetDevices: () => ({ devices: [] }),
      RemoveDevice: () => ({ removed: false }),
      GetUserLanguages: () => ({ found: false }),
    },
    { GetUser: [], ResolveUser: [], GetDevices: [], RemoveDevice: [], GetUserLanguages: [] },
  );
  return { server, address: `127.0.0.1:${await server.start(0)}` };
}

describe('gRPC server reflection', () => {
  it('When reflection is on, Then a client lists exactly the services this server serves and gets their descriptors', async () => {
    const { server, address } = await identityServer(true);
    try {
      const { services, files } = await reflectServer(address, IDENTITY);
      expect(services.sort()).toEqual(['grpc.health.v1.Health', IDENTITY]);
      // the FileDescriptorProto defining the service (as grpcurl describe uses it): its methods and messages
      expect(files.length).toBeGreaterThan(0);
      const descriptor = Buffer.concat(files).toString('latin1');
      for (const name of ['IdentityService', '.lingua.identity.v1.GetUserRequest', 'ResolveUser'])
        expect(descriptor).toContain(name);
    } finally {
      await server.stop(1000);
    }
  });

  it('When reflection is off (the default of createGrpcServer), Then the reflection service is UNIMPLEMENTED', async () => {
    const { server, address } = await identityServer(undefined);
    try {
      await expect(reflectServer(address)).rejects.toMatchObject({ code: status.UNIMPLEMENTED });
    } finally {
      await server.stop(1000);
    }
  });
});
