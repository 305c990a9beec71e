import { parseConfig } from '@lingua/config';
import { serviceEnv } from './service-env';

const schema = serviceEnv('identity', { http: 3001, grpc: 50051 });

describe('the shared service environment', () => {
  it('When NATS_URL is a seed list, Then the client gets each server and MONGO_URL is kept as written', () => {
    const config = parseConfig(schema, {
      NATS_URL: 'nats://nats-0:4222,nats://nats-1:4222',
      MONGO_URL: 'mongodb://db-0:27017,db-1:27017/?replicaSet=rs0&authSource=admin',
    });
    expect(config.natsServers).toEqual(['nats://nats-0:4222', 'nats://nats-1:4222']);
    expect(config.MONGO_URL).toBe('mongodb://db-0:27017,db-1:27017/?replicaSet=rs0&authSource=admin');
    expect(config.mongoDb).toBe('lingua_identity');
  });

  it('When nothing is set, Then the local servers are the defaults', () => {
    const config = parseConfig(schema, {});
    expect(config.natsServers).toEqual(['nats://127.0.0.1:4222']);
    expect(config.MONGO_URL).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('bounded growth settings', () => {
  const issues = (source: Record<string, string>) => {
    try {
      parseConfig(schema, source);
      return [];
    } catch (err) {
      return (err as { issues: { variable: string; message: string }[] }).issues;
    }
  };

  it('When nothing is set, Then streams keep 7 days, unlimited bytes, one replica, and handled ids 14 days', () => {
    const config = parseConfig(schema, {});
    expect(config.eventStreams).toEqual({
      maxAgeMs: 7 * 24 * 3600_000,
      maxBytes: -1,
      replicas: 1,
      duplicateWindowMs: 120_000,
    });
    expect(config.processedEventsTtlSeconds).toBe(14 * 24 * 3600);
  });

  it('When handled ids would be forgotten while the stream can still redeliver the event, Then PROCESSED_EVENTS_TTL_HOURS is refused', () => {
    expect(issues({ EVENTS_MAX_AGE_HOURS: '168', PROCESSED_EVENTS_TTL_HOURS: '168' })).toEqual([
      expect.objectContaining({ variable: 'PROCESSED_EVENTS_TTL_HOURS' }),
    ]);
  });

  it('When the duplicate window outlasts the stream or a byte limit is tiny, Then the variable is named', () => {
    expect(issues({ EVENTS_MAX_AGE_HOURS: '1', EVENTS_DUPLICATE_WINDOW_MS: '7200000' })).toEqual([
      expect.objectContaining({ variable: 'EVENTS_DUPLICATE_WINDOW_MS' }),
    ]);
    expect(issues({ EVENTS_MAX_BYTES: '1000' })).toEqual([
      expect.objectContaining({ variable: 'EVENTS_MAX_BYTES' }),
    ]);
    expect(issues({ EVENTS_REPLICAS: '7' })).toEqual([
      expect.objectContaining({ variable: 'EVENTS_REPLICAS' }),
    ]);
  });

  it('When the retry schedule of failed events is set, Then it is read as milliseconds; a malformed or absurd one is named', () => {
    expect(parseConfig(schema, {}).eventRetryBackoffMs).toEqual([1_000, 5_000, 30_000]);
    expect(parseConfig(schema, { EVENTS_RETRY_BACKOFF_MS: '100,200' }).eventRetryBackoffMs).toEqual([
      100, 200,
    ]);
    for (const bad of ['', '1s', '100,,200', '5', '100,7200000'])
      expect(issues({ EVENTS_RETRY_BACKOFF_MS: bad })).toEqual([
        expect.objectContaining({ variable: 'EVENTS_RETRY_BACKOFF_MS' }),
      ]);
  });
});
