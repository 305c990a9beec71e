export { connectMongo, describeMongoUrl } from './connect';
export type { MongoHandle } from './connect';
export { isDuplicateKeyError, mapDuplicateKeyError } from './duplicate-key';
export { findPage } from './find-page';
export type { PageOptions } from './find-page';
export { buildIndexes, ensureIndexes, indexLabel, indexName } from './indexes';
export type { IndexBuild, IndexFailure, IndexSpec } from './indexes';
