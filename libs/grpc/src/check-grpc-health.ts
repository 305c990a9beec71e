import { AppError, isAppError } from '@lingua/errors';
import { loadPackage } from '@lingua/proto';
import { createGrpcClient } from './create-grpc-client';

/**
 * Asks a server's standard health service whether it (or one of its services) is SERVING.
 * Resolves if so; rejects with AppError SERVICE_UNAVAILABLE (or UPSTREAM_TIMEOUT) otherwise.
 * For readiness checks and container healthchecks (see health-probe.ts).
 */
export async function checkGrpcHealth(address: string, timeoutMs = 1000, service = ''): Promise<void> {
  const client = createGrpcClient(loadPackage().grpc.health.v1.Health, address, {
    defaultDeadlineMs: timeoutMs,
  });
  try {
    const { status } = await client.call('Check', { service });
    if (status !== 'SERVING')
      throw new AppError('SERVICE_UNAVAILABLE', `${address} ${service || 'server'} is ${status}`);
  } catch (err) {
    if (isAppError(err) && (err.code === 'SERVICE_UNAVAILABLE' || err.code === 'UPSTREAM_TIMEOUT')) throw err;
    // NOT_FOUND (unknown service name) and anything else still mean "not ready".
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      `gRPC health check of ${address} failed: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  } finally {
    client.close();
  }
}
