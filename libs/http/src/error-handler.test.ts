import { createClient, createSentinel } from 'redis';
import { toAppError } from './error-handler';

// What a client sees when a dependency fails: the error handler's mapping, fed the errors the real
// client libraries throw (not look-alikes), so a library change that renames them shows here.
describe('toAppError', () => {
  it('When node-redis cannot reach its server, Then the answer is 503 (a dependency outage), never 500', async () => {
    const client = createClient({
      url: 'redis://127.0.0.1:1',
      disableOfflineQueue: true,
      socket: { connectTimeout: 500, reconnectStrategy: false },
    });
    client.on('error', () => undefined);
    const err = await client.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(toAppError(err).status).toBe(503);
  });

  it('When the Sentinel client finds no Sentinel and no primary (a failover that outlasts its rediscoveries), Then 503', async () => {
    const sentinel = createSentinel({
      name: 'nothing',
      sentinelRootNodes: [{ host: '127.0.0.1', port: 1 }],
      maxCommandRediscovers: 0,
      sentinelClientOptions: { socket: { connectTimeout: 500 } },
    });
    sentinel.on('error', () => undefined);
    const err = await sentinel.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(toAppError(err)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    // the same plain Errors the Sentinel client throws mid-failover
    for (const message of ['no valid master node', 'None of the sentinels are available'])
      expect(toAppError(new Error(message)).status).toBe(503);
  });

  it('When code fails for its own reasons, Then the answer is 500, also with a message that only resembles an outage', () => {
    expect(toAppError(new Error('boom')).status).toBe(500);
    expect(toAppError(new Error('no valid master node for tenant 7')).status).toBe(500);
    expect(toAppError(new TypeError('no valid master node')).status).toBe(500);
  });
});
