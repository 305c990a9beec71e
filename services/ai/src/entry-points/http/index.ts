import type { Express } from 'express';
import { authenticate, createAccessTokens, createTokenBlacklist } from '@lingua/auth';
import type { ServiceDeps } from '@lingua/bootstrap';
import { createApiDocs, serveApiDocs } from '@lingua/openapi';
import type { AiConfig } from '../../config';
import type { AiDeps } from '../../domain/ai-deps';
import { aiRoutes } from './ai.routes';

/** Every route of the service, each verifying the bearer token itself (with the Redis blacklist). */
export function registerHttp(app: Express, deps: ServiceDeps<AiConfig>, ai: AiDeps) {
  const auth = authenticate({
    tokens: createAccessTokens(deps.config.jwtSecret, ai.clock),
    blacklist: createTokenBlacklist(deps.redis!.client, ai.clock),
  });
  const docs = createApiDocs('ai');
  app.use(aiRoutes(auth, ai, docs));
  serveApiDocs(app, docs);
}
