import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError } from '@lingua/errors';
import { answerJson, errorBodyForPath } from './envelopes';

const RETRY_AFTER_S = '5';

/**
 * What a service answers while it waits for its dependencies (it listens at once, so that liveness
 * answers and Kubernetes holds it not-ready instead of restarting it): live 200, ready 503 naming
 * what it waits for, anything else 503 in the path's envelope with Retry-After.
 */
export function bootingListener(service: string, waitingFor: () => string): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const timestamp = new Date().toISOString();
    if (path === '/health/live')
      return answerJson(res, 200, { status: 'ok', service, starting: true, timestamp });
    if (path === '/health/ready')
      return answerJson(res, 503, {
        service,
        status: 'starting',
        ready: false,
        waitingFor: waitingFor(),
        timestamp,
      });
    const err = new AppError('SERVICE_UNAVAILABLE', `${service} is starting; try again shortly`, {
      headers: { 'Retry-After': RETRY_AFTER_S },
    });
    answerJson(res, 503, errorBodyForPath(path ?? '/', err), { 'retry-after': RETRY_AFTER_S });
    req.resume();
  };
}
