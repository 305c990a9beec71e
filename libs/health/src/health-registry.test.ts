import { HealthRegistry, OPTIONAL_TIMEOUT_MS } from './health-registry';

describe('HealthRegistry', () => {
  it('When every check passes, Then status ok and ready', async () => {
    const report = await new HealthRegistry()
      .register({ name: 'database', check: async () => undefined })
      .report();
    expect(report).toMatchObject({ status: 'ok', ready: true, checks: { database: { status: 'up' } } });
  });

  it('When a required check fails or hangs, Then not ready, with the reason per dependency', async () => {
    const report = await new HealthRegistry(50)
      .register({ name: 'database', check: () => new Promise(() => undefined) })
      .register({ name: 'nats', check: async () => Promise.reject(new Error('connection refused')) })
      .register({ name: 'redis', check: async () => undefined })
      .report();
    expect(report.ready).toBe(false);
    expect(report.status).toBe('error');
    expect(report.checks.database).toMatchObject({ status: 'down', error: 'timed out after 50 ms' });
    expect(report.checks.nats).toMatchObject({ status: 'down', error: 'connection refused' });
    expect(report.checks.redis!.status).toBe('up');
  });

  it('When only an optional check fails, Then degraded but still ready', async () => {
    const report = await new HealthRegistry()
      .register({ name: 'database', check: async () => undefined })
      .register({ name: 'external_apis', optional: true, check: async () => Promise.reject(new Error('x')) })
      .report();
    expect(report).toMatchObject({ status: 'degraded', ready: true });
  });

  it('When an optional check hangs (Redis waiting through a failover), Then it is reported down after the short timeout, not the required one', async () => {
    const report = await new HealthRegistry(60_000)
      .register({ name: 'database', check: async () => undefined })
      .register({ name: 'redis', optional: true, check: () => new Promise(() => undefined) })
      .report();
    expect(report).toMatchObject({ status: 'degraded', ready: true });
    expect(report.checks.redis).toMatchObject({
      status: 'down',
      error: `timed out after ${OPTIONAL_TIMEOUT_MS} ms`,
    });
  });
});
