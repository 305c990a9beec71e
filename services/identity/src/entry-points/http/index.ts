import cookieParser from 'cookie-parser';
import type { Express } from 'express';
import { authenticate } from '@lingua/auth';
import type { Logger } from '@lingua/logger';
import { createApiDocs, serveApiDocs } from '@lingua/openapi';
import type { IdentityDeps } from '../../domain/identity-deps';
import { authCatalogueRoutes } from './auth-catalogue.routes';
import { authFlows } from './auth-flows';
import { authV1Routes } from './auth-v1.routes';
import { devicesRoutes } from './devices.routes';
import { emailLinkPages } from './email-link-pages';
import { usersRoutes } from './users.routes';

/** Every HTTP route of identity, and its OpenAPI fragment at /internal/openapi.json. */
export function registerIdentityHttp(app: Express, deps: IdentityDeps, logger: Logger): void {
  const docs = createApiDocs('identity');
  // The caller is the gateway's assertion for identity; the blacklist is checked here too.
  const authenticated = authenticate({ assertions: deps.assertions, blacklist: deps.blacklist });
  app.use(['/api/v1/auth', '/api/auth'], cookieParser());
  // the sign-in flows are written once; each API face maps its own request and answer shapes
  const flows = authFlows(deps);
  app.use(authV1Routes(flows, authenticated, docs));
  app.use(authCatalogueRoutes(deps, flows, authenticated, docs, logger));
  app.use(usersRoutes(deps, authenticated, docs));
  app.use(devicesRoutes(deps, authenticated, docs));
  // web pages, not API operations: they stay out of the OpenAPI document
  app.use(emailLinkPages(deps));
  serveApiDocs(app, docs);
}
