export { connectMongo, databaseUrl } from './connect';
export type { MongoHandle } from './connect';
export { isDuplicateKeyError, mapDuplicateKeyError } from './duplicate-key';
export { findPage } from './find-page';
export type { PageOptions } from './find-page';
export { fileBucket } from './gridfs';
export type { FileBucket } from './gridfs';
