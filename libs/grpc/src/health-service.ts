import { status as GrpcStatus, type ServerWritableStream } from '@grpc/grpc-js';
import type {
  HealthCheckRequest__Output,
  HealthCheckResponse,
  HealthHandlers,
  HealthServingStatus,
} from '@lingua/proto';

/** What a service owner may report; '' names the server as a whole. */
export type ServingStatus = 'SERVING' | 'NOT_SERVING';

type WatchCall = ServerWritableStream<HealthCheckRequest__Output, HealthCheckResponse>;

export interface HealthService {
  handlers: HealthHandlers;
  setStatus(service: string, status: ServingStatus): void;
  statusOf(service: string): HealthServingStatus | undefined;
  /** Marks everything NOT_SERVING and ends open Watch streams, so a graceful shutdown is not held up. */
  shutdown(): void;
}

/** The standard grpc.health.v1.Health service over a table of statuses the owner keeps current. */
export function createHealthService(): HealthService {
  const statuses = new Map<string, ServingStatus>();
  const watchers = new Map<WatchCall, HealthServingStatus>();

  const current = (service: string): HealthServingStatus => statuses.get(service) ?? 'SERVICE_UNKNOWN';

  function notify(): void {
    for (const [call, sent] of watchers) {
      const now = current(call.request.service);
      if (now !== sent) {
        watchers.set(call, now);
        call.write({ status: now });
      }
    }
  }

  return {
    handlers: {
      Check(call, callback) {
        const status = statuses.get(call.request.service);
        if (status === undefined) callback({ code: GrpcStatus.NOT_FOUND, details: 'unknown service' });
        else callback(null, { status });
      },
      Watch(call) {
        const status = current(call.request.service);
        watchers.set(call, status);
        call.on('cancelled', () => watchers.delete(call));
        call.write({ status });
      },
    },
    setStatus(service, status) {
      statuses.set(service, status);
      notify();
    },
    statusOf: (service) => statuses.get(service),
    shutdown() {
      for (const service of statuses.keys()) statuses.set(service, 'NOT_SERVING');
      notify();
      for (const call of watchers.keys()) call.end();
      watchers.clear();
    },
  };
}
