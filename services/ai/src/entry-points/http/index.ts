import type { Express } from 'express';
import { authenticate, createAssertionVerifier, createTokenBlacklist } from '@lingua/auth';
import type { ServiceDeps } from '@lingua/bootstrap';
import { createApiDocs, serveApiDocs } from '@lingua/openapi';
import type { AiConfig } from '../../config';
import type { AiDeps } from '../../domain/ai-deps';
import { aiRoutes } from './ai.routes';

/** Every route of the service; the caller is the gateway's assertion for ai (and the Redis blacklist). */
export function registerHttp(app: Express, deps: ServiceDeps<AiConfig>, ai: AiDeps) {
  const auth = authenticate({
    assertions: createAssertionVerifier('ai', deps.config.assertionKey, { clock: ai.clock }),
    blacklist: createTokenBlacklist(deps.redis!.client, ai.clock),
  });
  const docs = createApiDocs('ai');
  app.use(aiRoutes(auth, ai, docs));
  serveApiDocs(app, docs);
}
