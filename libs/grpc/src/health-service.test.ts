import net from 'node:net';
import { credentials, type ServiceError } from '@grpc/grpc-js';
import { AppError } from '@lingua/errors';
import { loadPackage, type HealthCheckResponse__Output, type HealthClient } from '@lingua/proto';
import { silentLogger, waitFor } from '@lingua/testing';
import { checkGrpcHealth } from './check-grpc-health';
import { createGrpcServer, type GrpcServer } from './create-grpc-server';
import { runHealthProbe } from './health-probe';

const proto = loadPackage();
const IDENTITY = 'lingua.identity.v1.IdentityService';

let server: GrpcServer;
let address: string;
let health: HealthClient;

beforeAll(async () => {
  // probes carry no call assertion: health stays open while every other method asks for one
  server = createGrpcServer({ logger: silentLogger(), serviceName: 'identity', callers: {} });
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
  address = `127.0.0.1:${await server.start(0)}`;
  health = new proto.grpc.health.v1.Health(address, credentials.createInsecure());
});

afterAll(async () => {
  health.close();
  await server.stop(1000);
});

function check(service: string): Promise<HealthCheckResponse__Output> {
  return new Promise((resolve, reject) =>
    health.Check({ service }, { deadline: Date.now() + 1000 }, (err, res) =>
      err ? reject(err) : resolve(res!),
    ),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe('grpc.health.v1.Health on createGrpcServer', () => {
  it('When the server has started, Then Check reports SERVING for the server and for each added service', async () => {
    expect(await check('')).toEqual({ status: 'SERVING' });
    expect(await check(IDENTITY)).toEqual({ status: 'SERVING' });
    await expect(checkGrpcHealth(address, 1000)).resolves.toBeUndefined();
  });

  it('When Check names a service the server does not have, Then it fails with NOT_FOUND', async () => {
    await expect(check('lingua.nope.v1.NopeService')).rejects.toMatchObject({
      code: 5,
    } satisfies Partial<ServiceError>);
  });

  it('When the owner sets NOT_SERVING, Then Check says so, checkGrpcHealth rejects, and Watch sees the change', async () => {
    const watch = health.Watch({ service: IDENTITY });
    const updates: string[] = [];
    watch.on('data', (res: HealthCheckResponse__Output) => updates.push(res.status));
    watch.on('error', () => undefined); // the cancel below ends the stream with CANCELLED

    try {
      await waitFor(() => expect(updates).toEqual(['SERVING']));
      server.setServingStatus(IDENTITY, 'NOT_SERVING');
      server.setServingStatus('', 'NOT_SERVING');
      expect(await check('')).toEqual({ status: 'NOT_SERVING' });
      expect(await check(IDENTITY)).toEqual({ status: 'NOT_SERVING' });
      await expect(checkGrpcHealth(address, 1000)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      await expect(checkGrpcHealth(address, 1000, IDENTITY)).rejects.toBeInstanceOf(AppError);
      await waitFor(() => expect(updates).toEqual(['SERVING', 'NOT_SERVING']));
    } finally {
      watch.cancel();
      server.setServingStatus(IDENTITY, 'SERVING');
      server.setServingStatus('', 'SERVING');
    }
  });

  it('When nothing listens at the address, Then checkGrpcHealth rejects', async () => {
    const port = await freePort();
    await expect(checkGrpcHealth(`127.0.0.1:${port}`, 500)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('When the probe CLI runs, Then it exits 0 for a SERVING server and 1 for a closed port or bad arguments', async () => {
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await runHealthProbe([address])).toBe(0);
      expect(await runHealthProbe([`127.0.0.1:${await freePort()}`, '', '300'])).toBe(1);
      expect(await runHealthProbe([])).toBe(1);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});

describe('GrpcServer.stop', () => {
  it('When a Watch stream is open, Then stop ends it and returns well before the grace period', async () => {
    const other = createGrpcServer({ logger: silentLogger(), serviceName: 'other', callers: {} });
    const otherAddress = `127.0.0.1:${await other.start(0)}`;
    const client = new proto.grpc.health.v1.Health(otherAddress, credentials.createInsecure());
    try {
      const statuses: string[] = [];
      const watch = client.Watch({ service: '' });
      const ended = new Promise<void>((resolve) => {
        watch.on('data', (res: HealthCheckResponse__Output) => statuses.push(res.status));
        watch.on('end', resolve);
        watch.on('error', () => resolve());
      });
      await waitFor(() => expect(statuses).toEqual(['SERVING']));

      const started = Date.now();
      await other.stop(5000);
      await ended;
      expect(Date.now() - started).toBeLessThan(2000);
      expect(statuses).toEqual(['SERVING', 'NOT_SERVING']);
    } finally {
      client.close();
    }
  });
});
