import { status } from '@grpc/grpc-js';
import { type RunningService, serviceEnv, startService } from '@lingua/bootstrap';
import { reflectServer } from '@lingua/grpc';
import { isolatedServiceEnv } from '@lingua/testing';
import { loadServiceConfig } from '../../services/flashcards/src/config';
import { defineFlashcardsService } from '../../services/flashcards/src/start';

// Every service's gRPC server gets reflection from libs/bootstrap (GRPC_REFLECTION): on in
// development and tests, off by default in production, either way when set.

async function flashcardsWith(env: Record<string, string>): Promise<RunningService> {
  return startService(defineFlashcardsService(loadServiceConfig(isolatedServiceEnv(env))));
}

async function stop(service: RunningService) {
  await service.deps.mongo.connection.dropDatabase().catch(() => undefined);
  await service.stop();
}

describe('gRPC reflection of a running service', () => {
  it('When the service runs with the default outside production, Then a reflection client lists its services', async () => {
    const service = await flashcardsWith({});
    try {
      const { services } = await reflectServer(service.grpcAddress!);
      expect(services.sort()).toEqual(['grpc.health.v1.Health', 'lingua.flashcards.v1.FlashcardsService']);
    } finally {
      await stop(service);
    }
  });

  it('When GRPC_REFLECTION=false, Then the service offers no reflection', async () => {
    const service = await flashcardsWith({ GRPC_REFLECTION: 'false' });
    try {
      await expect(reflectServer(service.grpcAddress!)).rejects.toMatchObject({ code: status.UNIMPLEMENTED });
    } finally {
      await stop(service);
    }
  });

  it('When NODE_ENV is production, Then reflection is off unless GRPC_REFLECTION=true', () => {
    const parse = (env: Record<string, string>) => serviceEnv('flashcards', { http: 3002 }).parse(env);
    const key = { FLASHCARDS_ASSERTION_KEY: 'k'.repeat(40) };
    expect(parse({ ...key, NODE_ENV: 'production' }).grpcReflection).toBe(false);
    expect(parse({ ...key, NODE_ENV: 'production', GRPC_REFLECTION: 'true' }).grpcReflection).toBe(true);
    expect(parse({ NODE_ENV: 'development' }).grpcReflection).toBe(true);
    expect(parse({ NODE_ENV: 'development', GRPC_REFLECTION: 'no' }).grpcReflection).toBe(false);
    expect(() => parse({ GRPC_REFLECTION: 'maybe' })).toThrow(/GRPC_REFLECTION/);
  });
});
