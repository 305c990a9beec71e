import type { IRouter, RequestHandler } from 'express';
import type { ApiDocs, RouteDoc } from './api-docs';

/** A route declared once: the document's entry and what the router runs, in one object. */
export interface DeclaredRoute extends RouteDoc {
  /** Run before the handler, in order (authentication, an upload parser). */
  before?: RequestHandler[];
  handler: RequestHandler;
}

/**
 * Puts each route on the router and in the document, in order (express matches in declaration
 * order, so `/due` must come before `/:id`). `mountPath` is where the router is mounted: the router
 * gets the path below it, the document the whole path.
 */
export function declareRoutes(
  router: IRouter,
  docs: ApiDocs,
  routes: readonly DeclaredRoute[],
  mountPath = '',
): void {
  for (const { before = [], handler, ...doc } of routes) {
    if (!doc.path.startsWith(mountPath)) throw new Error(`${doc.path} is not under ${mountPath}`);
    router[doc.method](doc.path.slice(mountPath.length) || '/', ...before, handler);
    docs.route(doc);
  }
}
