export { createApiDocs, serveApiDocs, API_DOCS_PATH, operationIdFor, areaOf, codesFor } from './api-docs';
export type { ApiDocs, RouteDoc, RouteAuth, OpenApiDocument } from './api-docs';
export { mergeApiDocuments } from './merge';
export type { MergeOptions } from './merge';
export { successEnvelope, errorEnvelope, ErrorBodies } from './envelope-schemas';
export { TAG_DESCRIPTIONS } from './tags';
export { sendData } from './send-data';
export { declareRoutes } from './declare-routes';
export type { DeclaredRoute } from './declare-routes';
