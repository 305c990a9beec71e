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
